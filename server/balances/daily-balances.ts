/**
 * The balance rule of an account, day by day, in its own currency (docs/money.md#balances). All
 * figures are integers in 10^-4 units (money's stored scale), so sums are exact.
 *
 * - A valuation sets the balance at the end of its day (that day's flows are in it); on an
 *   investment account its cash is then the valuation less the holdings' value.
 * - Otherwise cash moves by the day's flows: an asset gains inflows and loses outflows, a
 *   liability (what is owed) the other way round.
 * - The balance is cash plus the holdings' market value.
 * - A flow whose exchange rate is unknown is left out and named: the balance is incomplete from
 *   that day until a valuation sets it again. Holdings without a rate are incomplete that day only.
 */

/** A pair of currencies to convert between. */
export interface CurrencyPair {
  from: string;
  to: string;
}

/** A missing rate: the pair and the first date it was needed. */
export interface MissingRate extends CurrencyPair {
  date: string;
}

/** The converted flows of one day. */
export interface DayFlows {
  /** Money in (positive). */
  inflows: bigint;
  /** Money out (positive). */
  outflows: bigint;
  /** Income: money in by transactions that are not transfers (positive). */
  income: bigint;
  /** Expenses: money out by transactions that are not transfers (positive). */
  expenses: bigint;
  /** The valuation of the day, if any. */
  valuation: bigint | null;
  /** Pairs of the day's flows that could not be converted. */
  missing: CurrencyPair[];
}

/** The holdings' value at the end of a day, in the account's currency. */
export interface DayHoldingsValue {
  value: bigint;
  missing: CurrencyPair[];
}

/** Where the walk starts: the end of the day before the first day computed. */
export interface StartOfWalk {
  cash: bigint;
  missing: MissingRate[];
}

export interface DailyBalance {
  date: string;
  balance: bigint;
  cash: bigint;
  holdings: bigint;
  inflows: bigint;
  outflows: bigint;
  income: bigint;
  expenses: bigint;
  complete: boolean;
  missing: MissingRate[];
  /** The flows' missing rates the next day starts from. */
  carried: MissingRate[];
}

const NO_FLOWS: DayFlows = { inflows: 0n, outflows: 0n, income: 0n, expenses: 0n, valuation: null, missing: [] };

function pairKey(pair: CurrencyPair): string {
  return `${pair.from}>${pair.to}`;
}

/** The balances of `days` (ascending), one per day, from the day before's state. */
export function dailyBalances(
  days: readonly string[],
  start: StartOfWalk,
  flows: ReadonlyMap<string, DayFlows>,
  holdings: readonly DayHoldingsValue[],
  liability: boolean,
): DailyBalance[] {
  let cash = start.cash;
  // Missing flow rates carried forward, by pair, with the first date each was missing.
  let carried = new Map(start.missing.map((missing) => [pairKey(missing), missing]));
  return days.map((date, index) => {
    const day = flows.get(date) ?? NO_FLOWS;
    const held = holdings[index] ?? { value: 0n, missing: [] };
    if (day.valuation !== null) {
      cash = day.valuation - held.value;
      carried = new Map();
    } else {
      const change = day.inflows - day.outflows;
      cash += liability ? -change : change;
      for (const pair of day.missing) {
        if (!carried.has(pairKey(pair))) carried.set(pairKey(pair), { ...pair, date });
      }
    }
    const missing = new Map(carried);
    for (const pair of held.missing) if (!missing.has(pairKey(pair))) missing.set(pairKey(pair), { ...pair, date });
    return {
      date,
      balance: cash + held.value,
      cash,
      holdings: held.value,
      inflows: day.inflows,
      outflows: day.outflows,
      income: day.income,
      expenses: day.expenses,
      complete: missing.size === 0,
      missing: [...missing.values()],
      carried: [...carried.values()],
    };
  });
}

/** The ISO dates from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (
    let day = new Date(`${from}T00:00:00Z`);
    day <= new Date(`${to}T00:00:00Z`);
    day.setUTCDate(day.getUTCDate() + 1)
  ) {
    days.push(day.toISOString().slice(0, 10));
  }
  return days;
}

/** The ISO date `days` days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}
