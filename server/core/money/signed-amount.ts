import { absolute, isNegative, negate, toDecimal } from './money.ts';

/** How a client states the direction of money: income/inflow come in, expense/outflow go out. */
export type Nature = 'income' | 'expense' | 'inflow' | 'outflow';

/** income (money in) or expense (money out): the classification shown for an entry. */
export type Classification = 'income' | 'expense';

/**
 * The stored amount for what a client sent. Stored amounts are positive for outflows and
 * negative for inflows; with a nature the sign comes from it, without one the amount is kept.
 */
export function signedAmount(amount: number | string, nature?: Nature | null): string {
  const decimal = toDecimal(amount);
  if (!nature) return decimal;
  const magnitude = absolute(decimal);
  return nature === 'income' || nature === 'inflow' ? negate(magnitude) : magnitude;
}

/** An entry is income when its stored amount is negative, otherwise expense. */
export function classify(storedAmount: string): Classification {
  return isNegative(storedAmount) ? 'income' : 'expense';
}
