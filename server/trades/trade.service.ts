import { Entry } from '../entries/entry.entity.ts';
import type { EntityManager } from '../db/orm.ts';
import { sql, sqlOn } from '../core/sql.ts';
import { lockAccount, lockEntryAccount } from '../accounts/account-lock.ts';
import { writeUnit } from '../core/write-unit.ts';
import { ValidationFailed, type ErrorDetail } from '../core/errors.ts';
import { queueAccountSync } from '../accounts/account-sync.ts';
import { BOUNDS, SCALE } from '../core/money/bounds.ts';
import { currencyProblem } from '../core/money/currency-check.ts';
import { decimalInput, minorUnitInput, moneyInput } from '../core/money/decimal-input.ts';
import { absolute, isNegative, toDecimal, trimDecimal } from '../core/money/money.ts';
import { Trade } from './trade.entity.ts';
import { firstPositionProblem } from './position-check.ts';
import { findTrade } from './trade.queries.ts';
import { balanceBoundAt } from '../balances/balance-bound.ts';

export type TradeDirection = 'buy' | 'sell';

export interface NewTrade {
  account_id: string;
  date: string;
  type: TradeDirection;
  qty?: number | string;
  price?: number | string;
  security_id?: string;
  ticker?: string;
  currency?: string;
  fee?: number | string;
  notes?: string;
}

export interface TradeChange {
  date?: string;
  name?: string;
  notes?: string;
  qty?: number | string;
  price?: number | string;
  type?: TradeDirection;
  nature?: 'inflow' | 'outflow';
  investment_activity_label?: string;
  currency?: string;
}

const INVALID = 'qty and price must be valid numbers';
const NOT_POSITIVE = 'qty and price must be present and positive';
const DEFAULT_LABELS: Record<TradeDirection, string> = { buy: 'Buy', sell: 'Sell' };
const BODY = '/trade';

/**
 * A quantity or price as an exact positive decimal string (seed rule 7): text that is not a number
 * is one mistake, a missing, zero or negative value another; more decimals than the column keeps
 * or a value above the bound is refused rather than rounded.
 */
function positiveNumber(value: number | string | undefined, field: 'qty' | 'price'): string {
  const path = `${BODY}/${field}`;
  if (value === undefined || value === null) throw ValidationFailed.at(path, NOT_POSITIVE);
  return decimalInput(value, {
    path,
    label: field,
    scale: field === 'qty' ? SCALE.qty : SCALE.money,
    max: field === 'qty' ? BOUNDS.qty : BOUNDS.price,
    invalid: INVALID,
    aboveZero: true,
    positive: NOT_POSITIVE,
  });
}

function checkCurrency(currency: string | undefined): void {
  const problem = currencyProblem(currency, `${BODY}/currency`);
  if (problem) throw new ValidationFailed([problem]);
}

/** The name the service gives a trade, `Buy 10 shares of VTI`; a name that differs was set by the user. */
function generatedName(direction: TradeDirection, qty: string, ticker: string | null): string {
  return `${direction === 'sell' ? 'Sell' : 'Buy'} ${trimDecimal(absolute(qty))} shares of ${ticker ?? 'an unknown security'}`;
}

/**
 * The signed quantity (a sale is negative) and the entry amount: signed qty x price rounded half to
 * even to the currency's minor unit (cash moves in whole minor units), + fee, computed by
 * PostgreSQL in numeric so nothing is lost to floating point. A total beyond the amount bound is
 * refused: it could not be stored, nor summed into a balance.
 */
async function amounts(
  em: EntityManager,
  direction: TradeDirection,
  qty: string,
  price: string,
  fee: string,
  currency: string,
) {
  const sign = direction === 'sell' ? -1 : 1;
  const [row] = await sql<{ qty: string; amount: string; too_large: boolean }>(
    em,
    `select (?::numeric * ?)::text as qty, total::text as amount, abs(total) > ?::numeric as too_large
       from (select round_half_even(?::numeric * ? * ?::numeric, currency_minor_digits(?)) + ?::numeric as total) computed`,
    [qty, sign, BOUNDS.amount, qty, sign, price, currency, fee],
  );
  if (row!.too_large) {
    throw ValidationFailed.at(BODY, `The trade total (qty x price + fee) must be at most ${BOUNDS.amount}`);
  }
  return row!;
}

/**
 * After a write, the positions of the security in the account must make sense on every date,
 * future-dated trades included: never fewer units than zero (a sale of what is not held), and
 * within the bounds the holdings columns store. Runs inside the write's transaction, after the
 * account lock, so a refused change rolls back with it.
 */
async function checkPositions(
  em: EntityManager,
  accountId: string,
  securityId: string,
  where: Omit<ErrorDetail, 'message'>,
): Promise<void> {
  await em.flush();
  const found = await firstPositionProblem(sqlOn(em), accountId, new Set([securityId]));
  if (!found) return;
  const { problem, position } = found;
  const message = problem.cause === 'sale' ? problem.message : `${problem.message} on ${position.date}`;
  throw new ValidationFailed([{ ...where, message }]);
}

/** An account that takes trades: investment accounts and crypto exchange accounts (seed rule 1); locked for the write. */
async function tradeAccount(em: EntityManager, familyId: string, id: string) {
  const account = await lockAccount<{ id: string; currency: string; account_type: string; subtype: string | null }>(
    em,
    familyId,
    id,
    'id, currency, account_type, subtype',
  );
  const supports =
    account.account_type === 'investment' || (account.account_type === 'crypto' && account.subtype === 'exchange');
  if (!supports) throw ValidationFailed.at('/trade/account_id', 'Account does not support trades');
  return account;
}

/** The security by id (visible to the family) or by ticker (reused when visible, else created for the family). */
async function securityFor(
  em: EntityManager,
  familyId: string,
  input: NewTrade,
): Promise<{ id: string; ticker: string }> {
  if (input.security_id) {
    const [found] = await sql<{ id: string; ticker: string }>(
      em,
      'select id, ticker from securities where id = ? and (family_id is null or family_id = ?)',
      [input.security_id, familyId],
    );
    if (!found) throw ValidationFailed.at('/trade/security_id', 'Security not found');
    return found;
  }
  const ticker = input.ticker?.trim().toUpperCase();
  if (!ticker) throw ValidationFailed.at('/trade', 'security_id or ticker is required');
  const visible = () =>
    sql<{ id: string; ticker: string }>(
      em,
      `select id, ticker from securities where upper(ticker) = ? and (family_id is null or family_id = ?)
        order by family_id nulls first limit 1`,
      [ticker, familyId],
    );
  const [existing] = await visible();
  if (existing) return existing;
  // Create-or-reuse in one statement: of concurrent first trades of a ticker, one inserts and the
  // others find its row (securities_ticker_key decides), none fails.
  const [created] = await sql<{ id: string; ticker: string }>(
    em,
    `insert into securities (id, family_id, ticker, kind, created_at, updated_at)
      values (gen_random_uuid(), ?, ?, 'standard', now(), now()) on conflict do nothing returning id, ticker`,
    [familyId, ticker],
  );
  return created ?? (await visible())[0]!;
}

/** Records a buy or sell; returns the entry id. The account's sync is queued in the same transaction. */
export async function createTrade(em: EntityManager, familyId: string, input: NewTrade): Promise<string> {
  const qty = positiveNumber(input.qty, 'qty');
  const price = positiveNumber(input.price, 'price');
  const fee = moneyInput(input.fee ?? 0, `${BODY}/fee`, 'fee', 'notNegative');
  checkCurrency(input.currency);
  return writeUnit(em, async (tx) => {
    const account = await tradeAccount(tx, familyId, input.account_id);
    const security = await securityFor(tx, familyId, input);
    const currency = input.currency ?? account.currency;
    minorUnitInput(fee, currency, `${BODY}/fee`, 'fee', 'notNegative');
    const signed = await amounts(tx, input.type, qty, price, fee, currency);
    const detail = tx.create(Trade, {
      security: security.id,
      qty: signed.qty,
      price: toDecimal(price),
      fee: toDecimal(fee),
      currency,
      investmentActivityLabel: DEFAULT_LABELS[input.type],
    });
    const entry = tx.create(Entry, {
      family: familyId,
      account: account.id,
      entryableType: 'Trade',
      entryableId: detail.id,
      amount: signed.amount,
      currency: detail.currency,
      date: input.date,
      name: generatedName(input.type, qty, security.ticker),
      notes: input.notes ?? null,
    });
    await checkPositions(tx, account.id, security.id, { path: `${BODY}/qty` });
    await queueAccountSync(tx, account.id);
    return entry.id;
  }).catch(balanceBoundAt({ path: `${BODY}/qty` }));
}

/**
 * Changes a trade (seed rules 2-5): `type` or `nature` sets the direction, else the stored one is
 * kept; when qty, price or direction change, the quantity is re-signed, the amount recomputed
 * with the stored fee and a generated name regenerated (a name the user set is kept); a custom
 * activity label survives, a default one follows the direction.
 */
export async function updateTrade(em: EntityManager, familyId: string, id: string, change: TradeChange): Promise<void> {
  const qty = change.qty === undefined ? undefined : positiveNumber(change.qty, 'qty');
  const price = change.price === undefined ? undefined : positiveNumber(change.price, 'price');
  checkCurrency(change.currency);
  await writeUnit(em, async (tx) => {
    await lockEntryAccount(tx, familyId, id, 'Trade');
    // The list's visibility (findTrade: 404 otherwise), then the rows to change.
    const row = await findTrade(tx, familyId, id);
    const entry = await tx.findOneOrFail(Entry, id);
    const detail = await tx.findOneOrFail(Trade, entry.entryableId);
    const stored: TradeDirection = isNegative(detail.qty) ? 'sell' : 'buy';
    const direction: TradeDirection =
      change.type ?? (change.nature ? (change.nature === 'inflow' ? 'sell' : 'buy') : stored);
    if (qty !== undefined || price !== undefined || direction !== stored) {
      const currency = change.currency ?? detail.currency;
      const signed = await amounts(
        tx,
        direction,
        qty ?? absolute(detail.qty),
        price ?? detail.price,
        detail.fee,
        currency,
      );
      if (entry.name === generatedName(stored, detail.qty, row.security_ticker)) {
        entry.name = generatedName(direction, signed.qty, row.security_ticker);
      }
      detail.qty = signed.qty;
      if (price !== undefined) detail.price = toDecimal(price);
      entry.amount = signed.amount;
      const label = detail.investmentActivityLabel;
      if (label === null || label === DEFAULT_LABELS.buy || label === DEFAULT_LABELS.sell) {
        detail.investmentActivityLabel = DEFAULT_LABELS[direction];
      }
    }
    if (change.investment_activity_label !== undefined)
      detail.investmentActivityLabel = change.investment_activity_label;
    if (change.date !== undefined) entry.date = change.date;
    if (change.name !== undefined) entry.name = change.name;
    if (change.notes !== undefined) entry.notes = change.notes;
    if (change.currency !== undefined) entry.currency = detail.currency = change.currency;
    detail.updatedAt = entry.updatedAt = new Date();
    if (row.security_id) await checkPositions(tx, entry.account.id, row.security_id, { path: BODY });
    await queueAccountSync(tx, entry.account.id);
  }).catch(balanceBoundAt({ path: BODY }));
}

/** Deletes a trade (entry and details) and queues its account's sync; refused when later sales would exceed what is held. */
export async function deleteTrade(em: EntityManager, familyId: string, id: string): Promise<void> {
  await writeUnit(em, async (tx) => {
    const accountId = await lockEntryAccount(tx, familyId, id, 'Trade');
    const entry = await tx.findOneOrFail(Entry, id);
    const detail = await tx.findOneOrFail(Trade, entry.entryableId);
    const securityId = detail.security.id;
    await tx.nativeDelete(Entry, { id: entry.id });
    await tx.nativeDelete(Trade, { id: entry.entryableId });
    await checkPositions(tx, accountId, securityId, { in: 'path', path: '/id' });
    await queueAccountSync(tx, accountId);
  }).catch(balanceBoundAt({ in: 'path', path: '/id' }));
}
