import type { components } from '../core/api-types.generated.ts';
import { ProblemList } from '../core/errors.ts';
import { currencyProblem } from '../core/money/currency-check.ts';
import { decimalInput } from '../core/money/decimal-input.ts';

/** What a rate keeps: `numeric(22,12)`, above 0, at most 10^9 (migration 20261129000000). */
export const RATE_RULE = { scale: 12, max: '1000000000' } as const;

export type RateItem = components['schemas']['ExchangeRatesUpsertRequest']['exchange_rates'][number];

/** A rate read exactly, one per from/to/date. */
export interface ExactRate {
  from: string;
  to: string;
  date: string;
  rate: string;
}

/** The message of a pair that converts a currency into itself. */
export const SAME_CURRENCY = 'from and to must be different currencies';

/** A rate's value as exact decimal text, or a 422 at `path` (places, sign and size of a string). */
function rateInput(value: number | string, path: string): string {
  return decimalInput(value, {
    path,
    label: 'rate',
    ...RATE_RULE,
    aboveZero: true,
  });
}

/**
 * The rates of a request, checked all at once (every problem at its pointer, nothing written on
 * any), one per from/to/date with the last one sent winning (a later item restates the earlier).
 */
export function readRates(items: readonly RateItem[]): ExactRate[] {
  const problems = new ProblemList();
  const byKey = new Map<string, ExactRate>();
  items.forEach((item, index) => {
    const at = `/exchange_rates/${index}`;
    for (const side of ['from', 'to'] as const) {
      const problem = currencyProblem(item[side], `${at}/${side}`);
      if (problem) problems.add(problem.path!, problem.message);
    }
    if (item.from === item.to) problems.add(`${at}/to`, SAME_CURRENCY);
    const rate = problems.take(() => rateInput(item.rate, `${at}/rate`));
    if (rate === undefined) return;
    const key = `${item.from}/${item.to}/${item.date}`;
    byKey.set(key, { from: item.from, to: item.to, date: item.date, rate });
  });
  problems.throwIfAny();
  return [...byKey.values()];
}
