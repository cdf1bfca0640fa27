/**
 * The largest values the service accepts, chosen so that everything derived from them fits its
 * column and stays exact in minor units: money is `numeric(19,4)` (below 10^15) and its cents
 * must stay below 2^53 in JSON; quantities are `numeric(24,8)` (below 10^16). The contract states
 * the same numbers as `maximum`s; a position (held quantity x price) is bounded like an amount,
 * so the account sync can always store what a trade made possible.
 */
export const BOUNDS = {
  /** Any amount of money: a transaction, valuation, fee, opening balance, trade total or position value. */
  amount: '9999999999999.9999',
  /** Units in one trade. */
  qty: '1000000000000',
  /** Units held of one security in one account. */
  heldQty: '100000000000000',
  /** Price per unit. */
  price: '1000000000',
} as const;

/** Fraction digits kept: money and prices 4, quantities 8. */
export const SCALE = { money: 4, qty: 8 } as const;
