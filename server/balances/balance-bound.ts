/**
 * The balance bound (docs/money.md#the-balance-bound): what an account's entries and holdings can
 * add up to, its reach, stays within BOUNDS.balance, so no figure the account sync derives from
 * them can overflow its column.
 *
 * The rule itself is SQL (`entries_reach()`, `holdings_reach()` and the triggers of migration
 * 20261130040000), so
 * every write of entries, trades, prices and rates is checked, whoever writes them; this module
 * turns the database's refusal into the 422 of a request or the reason of a failed import.
 */
import { ValidationFailed, type ErrorDetail } from '../core/errors.ts';
import { BALANCE_BOUND_STATE, BOUNDS } from '../core/money/bounds.ts';

/** The refusal's words when `error` is the database refusing a write for the balance bound. */
export function balanceBoundRefusal(error: unknown): string | undefined {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  if (code !== BALANCE_BOUND_STATE) return undefined;
  return `Account '${String(detail)}' would exceed the balance bound: its entries and holdings may add up to at most ${BOUNDS.balance}`;
}

/**
 * A rejection handler for a write's promise: a refusal for the balance bound becomes a 422 at
 * `where` (the write's transaction rolled back: nothing was written); any other error passes.
 */
export function balanceBoundAt(where: Omit<ErrorDetail, 'message'>): (error: unknown) => never {
  return (error) => {
    const message = balanceBoundRefusal(error);
    if (message) throw new ValidationFailed([{ ...where, message }]);
    throw error;
  };
}
