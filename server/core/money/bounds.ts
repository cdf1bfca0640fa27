/**
 * The largest values the service accepts, chosen so that everything derived from them fits its
 * column: money is `numeric(19,4)` (below 10^15; its minor units may pass 2^53, and answers write
 * them exactly, docs/money.md#minor-units); quantities are `numeric(24,8)` (below 10^16). The
 * contract states the same numbers as `maximum`s; a position (held quantity x price) is bounded
 * like an amount, so the account sync can always store what a trade made possible.
 *
 * Each bound is the shortest text of a double (`String(Number(b)) === b`): a JSON number arrives
 * as a double, and a JSON Schema validator compares that double with the contract's `maximum`, so
 * only such a bound means the same to a client's validator and to this server.
 */
export const BOUNDS = {
  /** Any amount of money: a transaction, valuation, fee, opening balance, trade total or position value. */
  amount: '10000000000000',
  /** Units in one trade. */
  qty: '1000000000000',
  /** Units held of one security in one account. */
  heldQty: '100000000000000',
  /** Price per unit. */
  price: '1000000000',
  /**
   * What an account's entries and holdings may add up to (server/balances/balance-bound.ts): the
   * largest whole amount the balance columns (`numeric(19,4)`) store, so no figure the account
   * sync derives can overflow them.
   */
  balance: '999999999999999',
} as const;

/** Fraction digits kept: money and prices 4, quantities 8. */
export const SCALE = { money: 4, qty: 8 } as const;

/**
 * The SQLSTATE with which the database refuses a write beyond BOUNDS.balance (the check of
 * migration 20261130040000; its DETAIL is the account's name): server/balances/balance-bound.ts
 * turns it into a 422.
 */
export const BALANCE_BOUND_STATE = 'MB001';
