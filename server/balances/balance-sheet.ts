import type { components } from '../core/api-types.generated.ts';
import { ACCOUNT_TYPES, type AccountType } from '../accounts/account.entity.ts';
import { accountClassification } from '../accounts/account.view.ts';
import { fromUnits, productUnits, toUnits } from '../core/money/decimal-math.ts';
import { minorDigits } from '../core/money/minor-units.ts';
import { formatMoney, toMinorUnits, trimDecimal } from '../core/money/money.ts';
import { sqlOn, type Sql, type SqlTarget } from '../core/sql.ts';
import { addDays, daysBetween, type MissingRate } from './daily-balances.ts';
import { ratesOn } from './rates-on.ts';

export type BalanceSheetPeriod = components['schemas']['BalanceSheetPeriod'];

/** How far back each period goes, as a PostgreSQL interval (ALL: from the first balance). */
const PERIODS: Record<Exclude<BalanceSheetPeriod, 'ALL'>, string> = {
  '1M': '1 month',
  '3M': '3 months',
  '6M': '6 months',
  '1Y': '1 year',
  '5Y': '5 years',
};

/** Periods charted day by day; longer ones every seventh day, ending today. */
const DAILY: readonly BalanceSheetPeriod[] = ['1M', '3M'];

/** Accounts in use count; disabled ones and those being deleted do not. */
const COUNTED = `a.status in ('active', 'draft')`;

interface CountedAccount {
  id: string;
  name: string;
  account_type: AccountType;
  currency: string;
  balance: string;
  balance_complete: boolean;
  missing_exchange_rates: MissingRate[];
}

interface DayFigure {
  account_id: string;
  date: string;
  balance: string;
  complete: boolean;
  /** The day's rate into the family's currency, kept by the sync. */
  family_rate: string | null;
}

/** The dates of the series: every day, or every seventh day counted back from today. */
function seriesDates(period: BalanceSheetPeriod, start: string, today: string): string[] {
  if (DAILY.includes(period)) return daysBetween(start, today);
  const dates: string[] = [];
  for (let date = today; date >= start; date = addDays(date, -7)) dates.push(date);
  return dates.reverse();
}

/** Keeps the earliest date of each pair. */
function addMissing(found: Map<string, MissingRate>, missing: MissingRate): void {
  const key = `${missing.from}>${missing.to}`;
  const known = found.get(key);
  if (!known || missing.date < known.date) found.set(key, missing);
}

/** The minor units, rounded half to even, of `amount` x `rate`; null without a rate. */
function converted(amount: string, rate: string | null | undefined, places: number): bigint | null {
  return rate ? productUnits([amount, rate], places) : null;
}

/**
 * The household's balance sheet in its currency (docs/money.md#net-worth): each counted account's
 * balance at the end of each date (its daily balance of that date, or its latest one when the sync
 * has not written that day yet; today: the account's own figures) converted at that date's rate and
 * rounded half to even to the family currency's minor unit, then summed; what cannot be converted
 * is left out and named. Reads a few rows per account and date, never the entries.
 */
export async function balanceSheet(target: SqlTarget, familyId: string, period: BalanceSheetPeriod) {
  const run = sqlOn(target);
  const [family] = (await run<{ currency: string; today: string; start: string }>(
    `select f.currency::text as currency, to_char(current_date, 'YYYY-MM-DD') as today,
            to_char(case when ?::text is null
                      then coalesce((select min(b.date) from balances b join accounts a on a.id = b.account_id
                                      where a.family_id = f.id and ${COUNTED}), current_date)
                      else (current_date - ?::interval)::date end, 'YYYY-MM-DD') as start
       from families f where f.id = ?`,
    [period === 'ALL' ? null : PERIODS[period], period === 'ALL' ? null : PERIODS[period], familyId],
  )) as [{ currency: string; today: string; start: string }];
  const { currency, today, start } = family;
  const places = minorDigits(currency);
  const dates = seriesDates(period, start, today);
  const accounts = await run<CountedAccount>(
    `select a.id, a.name, a.account_type, a.currency::text as currency, a.balance::text as balance, a.balance_complete,
            a.missing_exchange_rates
       from accounts a where a.family_id = ? and ${COUNTED} order by a.name, a.id`,
    [familyId],
  );
  const ids = accounts.map((account) => account.id);
  const past = dates.slice(0, -1);
  // Each date's row, and each account's latest row for the dates after it (a sync not yet run today).
  const figures = await run<DayFigure & { latest: boolean }>(
    `select b.account_id, to_char(b.date, 'YYYY-MM-DD') as date, b.balance::text as balance, b.complete,
            b.family_rate::text as family_rate, false as latest
       from balances b where b.account_id = any(?::uuid[]) and b.date = any(?::date[])
     union all
     select l.account_id, to_char(l.date, 'YYYY-MM-DD'), l.balance::text, l.complete, l.family_rate::text, true
       from unnest(?::uuid[]) as a(id)
       cross join lateral (select * from balances b where b.account_id = a.id order by b.date desc limit 1) l`,
    [ids, past, ids],
  );
  const byDate = new Map<string, DayFigure>();
  const latest = new Map<string, DayFigure>();
  for (const figure of figures) {
    if (figure.latest) latest.set(figure.account_id, figure);
    else byDate.set(`${figure.account_id}|${figure.date}`, figure);
  }
  // Rows keep their day's rate; dates after an account's latest row ask the rate rule.
  const unsynced = dates.filter((date) => accounts.some((account) => (latest.get(account.id)?.date ?? '') < date));
  const foreign = [...new Set(accounts.map((account) => account.currency))].filter((code) => code !== currency);
  const rates = await ratesOn(run, familyId, foreign, currency, unsynced);
  const rateOf = (account: CountedAccount, date: string, figure?: DayFigure) => {
    if (account.currency === currency) return '1';
    if (figure && figure.date === date) return figure.family_rate;
    return rates.get(`${account.currency}|${date}`) ?? null;
  };

  const missing = new Map<string, MissingRate>();
  const points = dates.map((date) => {
    let assets = 0n;
    let liabilities = 0n;
    let complete = true;
    for (const account of accounts) {
      const last = latest.get(account.id);
      let figure: { balance: string; complete: boolean } | undefined;
      let rate: string | null;
      if (date === today) {
        figure = { balance: account.balance, complete: account.balance_complete };
        rate = rateOf(account, date, last);
      } else {
        const row = byDate.get(`${account.id}|${date}`) ?? (last && last.date < date ? last : undefined);
        figure = row;
        rate = rateOf(account, date, row);
      }
      if (!figure) continue; // not opened yet on that date
      if (!figure.complete) complete = false;
      const value = converted(figure.balance, rate, places);
      if (value === null) {
        complete = false;
        addMissing(missing, { from: account.currency, to: currency, date });
      } else if (accountClassification(account.account_type) === 'liability') liabilities += value;
      else assets += value;
    }
    return { date, assets, liabilities, complete };
  });
  for (const account of accounts) for (const rate of account.missing_exchange_rates) addMissing(missing, rate);
  const flows = await periodFlows(run, accounts, currency, start, today);
  for (const rate of flows.missing) addMissing(missing, rate);

  const money = (units: bigint) => {
    const amount = fromUnits(units);
    return [formatMoney(amount, currency), toMinorUnits(amount, currency)] as const;
  };
  const minor = (units: bigint) => toMinorUnits(fromUnits(units), currency);
  const now = points[points.length - 1]!;
  const [assets, assetsCents] = money(now.assets);
  const [liabilities, liabilitiesCents] = money(now.liabilities);
  const [netWorth, netWorthCents] = money(now.assets - now.liabilities);
  const todayRate = (account: CountedAccount) => rateOf(account, today, latest.get(account.id));
  const groups = ACCOUNT_TYPES.map((type) => {
    const members = accounts.filter((account) => account.account_type === type);
    const values = members.map((account) => converted(account.balance, todayRate(account), places));
    const [total, totalCents] = money(values.reduce<bigint>((sum, value) => sum + (value ?? 0n), 0n));
    return {
      account_type: type,
      classification: accountClassification(type),
      total,
      total_cents: totalCents,
      accounts: members.map((account, index) => {
        const value = values[index]!;
        const rate = todayRate(account);
        return {
          id: account.id,
          name: account.name,
          account_type: account.account_type,
          currency: account.currency,
          balance: formatMoney(account.balance, account.currency),
          balance_cents: toMinorUnits(account.balance, account.currency),
          balance_complete: account.balance_complete,
          exchange_rate: account.currency === currency || rate === null ? null : trimDecimal(rate),
          converted_balance: value === null ? null : formatMoney(fromUnits(value), currency),
          converted_balance_cents: value === null ? null : minor(value),
        };
      }),
    };
  })
    .filter((group) => group.accounts.length)
    .sort((a, b) => (a.classification === b.classification ? 0 : a.classification === 'asset' ? -1 : 1));
  const [income, incomeCents] = money(flows.income);
  const [expenses, expensesCents] = money(flows.expenses);
  return {
    currency,
    period,
    start_date: start,
    end_date: today,
    net_worth: netWorth,
    net_worth_cents: netWorthCents,
    assets,
    assets_cents: assetsCents,
    liabilities,
    liabilities_cents: liabilitiesCents,
    complete: now.complete,
    missing_exchange_rates: [...missing.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
    groups,
    series: points.map((point) => ({
      date: point.date,
      net_worth: minor(point.assets - point.liabilities),
      assets: minor(point.assets),
      liabilities: minor(point.liabilities),
      complete: point.complete,
    })),
    flows: {
      income,
      income_cents: incomeCents,
      expenses,
      expenses_cents: expensesCents,
      complete: flows.complete,
    },
  };
}

/**
 * Income and expenses of the counted accounts from `start` to `end` in the family's currency, from
 * the daily balances (each day's income and expenses in its account's currency, without transfers,
 * converted at the day's rate the row keeps). Incomplete when a day's rate is missing or a day could
 * not convert everything.
 */
async function periodFlows(
  run: Sql,
  accounts: readonly CountedAccount[],
  currency: string,
  start: string,
  end: string,
) {
  // Each day's income and expenses times the day's rate into the family's currency, kept on the
  // row by the sync; a row in the family's own currency needs no rounding.
  // One scan of the rows: the days without a rate come back as they are (the caller keeps each
  // currency's first), so no second pass over them is needed.
  const [row] = (await run<{ income: string; expenses: string; complete: boolean; missing: MissingRate[] }>(
    `select coalesce(sum(case when b.family_rate = 1 then b.income
                              else round_half_even(b.income * b.family_rate, currency_minor_digits(?::text)) end), 0)::text
              as income,
            coalesce(sum(case when b.family_rate = 1 then b.expenses
                              else round_half_even(b.expenses * b.family_rate, currency_minor_digits(?::text)) end), 0)::text
              as expenses,
            coalesce(bool_and(b.complete and b.family_rate is not null), true) as complete,
            coalesce(json_agg(json_build_object('from', b.currency, 'to', ?::text, 'date', to_char(b.date, 'YYYY-MM-DD')))
                       filter (where b.family_rate is null), '[]') as missing
       from balances b
      where b.account_id = any(?::uuid[]) and b.date between ?::date and ?::date
        and (b.income <> 0 or b.expenses <> 0 or not b.complete)`,
    [currency, currency, currency, accounts.map((account) => account.id), start, end],
  )) as [{ income: string; expenses: string; complete: boolean; missing: MissingRate[] }];
  return { income: toUnits(row.income), expenses: toUnits(row.expenses), complete: row.complete, missing: row.missing };
}
