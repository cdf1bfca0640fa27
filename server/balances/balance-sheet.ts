import type { components } from '../core/api-types.generated.ts';
import { ACCOUNT_TYPES, type AccountType } from '../accounts/account.entity.ts';
import { accountClassification } from '../accounts/account.view.ts';
import { fromUnits, toUnits } from '../core/money/decimal-math.ts';
import { formatMoney, toMinorUnits, trimDecimal } from '../core/money/money.ts';
import { sqlOn, type Sql, type SqlTarget } from '../core/sql.ts';
import { inConfirmedTransfer } from '../transfers/transfer-membership.ts';
import { addDays, daysBetween, type MissingRate } from './daily-balances.ts';

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

interface AccountOnDate {
  date: string;
  id: string;
  name: string;
  account_type: AccountType;
  currency: string;
  balance: string | null;
  complete: boolean | null;
  missing_exchange_rates: MissingRate[] | null;
  rate: string | null;
  converted: string | null;
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

/**
 * The household's balance sheet in its currency (docs/money.md#net-worth): each counted account's
 * balance at the end of each date (its latest daily balance on or before it) converted at that
 * date's rate and rounded half to even to the family currency's minor unit, then summed; what
 * cannot be converted is left out and named.
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
  const dates = seriesDates(period, start, today);
  const rows = await run<AccountOnDate>(
    `select to_char(p.date, 'YYYY-MM-DD') as date, a.id, a.name, a.account_type, a.currency::text as currency,
            b.balance::text as balance, b.complete, b.missing_exchange_rates, x.rate::text as rate,
            round_half_even(b.balance * x.rate, currency_minor_digits(?::text))::text as converted
       from unnest(?::date[]) as p(date)
       cross join accounts a
       left join lateral (
         select d.balance, d.complete, d.missing_exchange_rates from balances d
          where d.account_id = a.id and d.date <= p.date order by d.date desc limit 1
       ) b on true
       cross join lateral (
         select case when a.currency = ?::text then 1::numeric
                     else exchange_rate_on(a.family_id, a.currency, ?::text, p.date) end as rate
       ) x
      where a.family_id = ? and ${COUNTED}
      order by p.date, a.name, a.id`,
    [currency, dates, currency, currency, familyId],
  );
  const missing = new Map<string, MissingRate>();
  const points = new Map<string, { assets: bigint; liabilities: bigint; complete: boolean }>();
  for (const date of dates) points.set(date, { assets: 0n, liabilities: 0n, complete: true });
  for (const row of rows) {
    if (row.balance === null) continue; // not opened yet on that date
    const point = points.get(row.date)!;
    if (!row.complete) point.complete = false;
    if (row.converted === null) {
      point.complete = false;
      addMissing(missing, { from: row.currency, to: currency, date: row.date });
      continue;
    }
    if (accountClassification(row.account_type) === 'liability') point.liabilities += toUnits(row.converted);
    else point.assets += toUnits(row.converted);
  }
  const todays = rows.filter((row) => row.date === today);
  for (const row of todays) for (const rate of row.missing_exchange_rates ?? []) addMissing(missing, rate);
  const flows = await periodFlows(run, familyId, currency, start, today);
  for (const rate of flows.missing) addMissing(missing, rate);

  const money = (units: bigint) => {
    const amount = fromUnits(units);
    return [formatMoney(amount, currency), toMinorUnits(amount, currency)] as const;
  };
  const now = points.get(today)!;
  const [assets, assetsCents] = money(now.assets);
  const [liabilities, liabilitiesCents] = money(now.liabilities);
  const [netWorth, netWorthCents] = money(now.assets - now.liabilities);
  const groups = ACCOUNT_TYPES.map((type) => {
    const accounts = todays.filter((row) => row.account_type === type && row.balance !== null);
    const total = accounts.reduce((sum, row) => sum + (row.converted === null ? 0n : toUnits(row.converted)), 0n);
    const [formatted, cents] = money(total);
    return {
      account_type: type,
      classification: accountClassification(type),
      total: formatted,
      total_cents: cents,
      accounts: accounts.map((row) => ({
        id: row.id,
        name: row.name,
        account_type: row.account_type,
        currency: row.currency,
        balance: formatMoney(row.balance!, row.currency),
        balance_cents: toMinorUnits(row.balance!, row.currency),
        balance_complete: row.complete!,
        exchange_rate: row.currency === currency || row.rate === null ? null : trimDecimal(row.rate),
        converted_balance: row.converted === null ? null : formatMoney(row.converted, currency),
        converted_balance_cents: row.converted === null ? null : toMinorUnits(row.converted, currency),
      })),
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
    series: dates.map((date) => {
      const point = points.get(date)!;
      return {
        date,
        net_worth: toMinorUnits(fromUnits(point.assets - point.liabilities), currency),
        assets: toMinorUnits(fromUnits(point.assets), currency),
        liabilities: toMinorUnits(fromUnits(point.liabilities), currency),
        complete: point.complete,
      };
    }),
    flows: {
      income,
      income_cents: incomeCents,
      expenses,
      expenses_cents: expensesCents,
      complete: flows.missing.length === 0,
    },
  };
}

/**
 * Income and expenses of the counted accounts from `start` to `end`, in the family's currency:
 * each transaction at its own rate when its account is in the family's currency, else at the rate
 * of its date. Excluded transactions and transfers between the family's accounts are left out.
 */
async function periodFlows(run: Sql, familyId: string, currency: string, start: string, end: string) {
  const [row] = (await run<{ income: string; expenses: string; missing: MissingRate[] }>(
    `with flows as (
       select e.currency::text as code, e.date,
              case when e.currency = ?::text then e.amount
                   else round_half_even(e.amount * (case when a.currency = ?::text and e.exchange_rate is not null
                                                         then e.exchange_rate
                                                         else exchange_rate_on(e.family_id, e.currency, ?::text, e.date) end),
                                        currency_minor_digits(?::text)) end as amount
         from entries e join accounts a on a.id = e.account_id
        where e.family_id = ? and e.entryable_type = 'Transaction' and not e.excluded and ${COUNTED}
          and not ${inConfirmedTransfer('e')} and e.date between ?::date and ?::date
     )
     select coalesce(sum(-amount) filter (where amount < 0), 0)::text as income,
            coalesce(sum(amount) filter (where amount > 0), 0)::text as expenses,
            coalesce((select json_agg(json_build_object('from', m.code, 'to', ?::text, 'date', to_char(m.first, 'YYYY-MM-DD')))
                        from (select code, min(date) as first from flows where amount is null group by code) m),
                     '[]') as missing
       from flows`,
    [currency, currency, currency, currency, familyId, familyId, start, end, currency],
  )) as [{ income: string; expenses: string; missing: MissingRate[] }];
  return { income: toUnits(row.income), expenses: toUnits(row.expenses), missing: row.missing };
}
