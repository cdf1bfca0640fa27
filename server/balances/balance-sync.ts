import { accountClassification } from '../accounts/account.view.ts';
import type { AccountType } from '../accounts/account.entity.ts';
import { fromUnits, productUnits, toUnits } from '../core/money/decimal-math.ts';
import { minorDigits } from '../core/money/minor-units.ts';
import { runStatement, sqlOn, type Queryable } from '../core/sql.ts';
import { marketFacts } from '../holdings/account-positions.ts';
import { dailyHoldings } from '../holdings/holding.positions.ts';
import { inFamilyTransfers } from '../transfers/transfer-membership.ts';
import {
  addDays,
  dailyBalances,
  daysBetween,
  type CurrencyPair,
  type DailyBalance,
  type DayFlows,
  type DayHoldingsValue,
  type MissingRate,
} from './daily-balances.ts';
import { ratesOn } from './rates-on.ts';

interface SyncedAccount {
  family_id: string;
  family_currency: string;
  currency: string;
  account_type: AccountType;
  opening_balance: string;
  stale_from: string | null;
  first_date: string;
  last_row: string | null;
  today: string;
}

/**
 * Recomputes an account's daily balances from the date its changes marked stale (the database
 * marks it: migration 20261129000000) up to today, rewriting only rows that changed, and sets the
 * account's balance, cash, holdings value and missing rates from today's. Runs inside the caller's
 * transaction and takes the account's row lock first, as every write does. Returns the number of
 * days recomputed (0 when the account is gone: a queued sync may outlive it).
 */
export async function syncBalances(client: Queryable, accountId: string): Promise<number> {
  const run = <Row>(text: string, params: unknown[]) => runStatement<Row>(client, { text, params });
  const [account] = await run<SyncedAccount>(
    `select a.family_id, (select f.currency::text from families f where f.id = a.family_id) as family_currency,
            a.currency::text as currency, a.account_type, a.opening_balance::text as opening_balance,
            case when a.balances_stale_from is null then null
                 when isfinite(a.balances_stale_from) then to_char(a.balances_stale_from, 'YYYY-MM-DD')
                 else '0001-01-01' end as stale_from,
            to_char(least(current_date, a.created_at::date,
              (select min(date) from entries where account_id = a.id and entryable_type = 'Transaction'),
              (select min(date) from entries where account_id = a.id and entryable_type = 'Valuation'),
              (select min(date) from entries where account_id = a.id and entryable_type = 'Trade')), 'YYYY-MM-DD') as first_date,
            (select to_char(max(date), 'YYYY-MM-DD') from balances where account_id = a.id) as last_row,
            to_char(current_date, 'YYYY-MM-DD') as today
       from accounts a where a.id = ?::uuid for no key update`,
    [accountId],
  );
  if (!account) return 0;
  const { currency, today, first_date: first } = account;
  // Without a mark, only the days since the last stored one are new (a sync on a later day).
  let from = account.stale_from ?? (account.last_row ? addDays(account.last_row, 1) : first);
  if (account.last_row && account.last_row < from) from = addDays(account.last_row, 1);
  let start = { cash: toUnits(account.opening_balance), missing: [] as MissingRate[] };
  if (from <= first) from = first;
  else {
    const [before] = await run<{ cash_balance: string; carried_missing_rates: MissingRate[] }>(
      'select cash_balance::text as cash_balance, carried_missing_rates from balances where account_id = ?::uuid and date = ?::date',
      [accountId, addDays(from, -1)],
    );
    if (before) start = { cash: toUnits(before.cash_balance), missing: before.carried_missing_rates };
    else from = first;
  }
  const days = from <= today ? daysBetween(from, today) : [];
  const rows = dailyBalances(
    days,
    start,
    await dayFlows(client, accountId, account, from),
    await holdingsValues(client, accountId, account, days),
    accountClassification(account.account_type) === 'liability',
  );
  await storeBalances(client, accountId, currency, first, today, rows, await familyRates(client, account, days));
  return days.length;
}

/** The converted flows and valuations of each day from `from` to today. */
async function dayFlows(
  client: Queryable,
  accountId: string,
  account: SyncedAccount,
  from: string,
): Promise<Map<string, DayFlows>> {
  const rows = await runStatement<{
    date: string;
    inflows: string;
    outflows: string;
    income: string;
    expenses: string;
    valuation: string | null;
    missing: string[];
  }>(client, {
    // An entry in another currency counts at its own rate, else at the rate of its date, rounded
    // half to even to the account's minor unit; without a rate it is null: left out and named.
    // Income and expenses are transactions, not excluded, in no confirmed transfer. `offset 0`
    // keeps the lateral a subquery, so each entry's rate is looked up once, not once per use.
    text: `
        select to_char(e.date, 'YYYY-MM-DD') as date,
               coalesce(sum(-x.amount) filter (where e.entryable_type <> 'Valuation' and not e.excluded and x.amount < 0), 0)::text as inflows,
               coalesce(sum(x.amount) filter (where e.entryable_type <> 'Valuation' and not e.excluded and x.amount > 0), 0)::text as outflows,
               coalesce(sum(-x.amount) filter (where x.income_or_expense and x.amount < 0), 0)::text as income,
               coalesce(sum(x.amount) filter (where x.income_or_expense and x.amount > 0), 0)::text as expenses,
               (max(x.amount) filter (where e.entryable_type = 'Valuation'))::text as valuation,
               coalesce(array_agg(distinct e.currency::text) filter (where x.amount is null and not e.excluded), '{}') as missing
          from entries e
          cross join lateral (
            select case when e.currency = ?::text then e.amount
                        else round_half_even(e.amount * coalesce(e.exchange_rate,
                               exchange_rate_on(?::uuid, e.currency, ?::text, e.date)), currency_minor_digits(?::text)) end as amount,
                   e.entryable_type = 'Transaction' and not e.excluded and not ${inFamilyTransfers('e')} as income_or_expense
            offset 0
          ) x
         where e.account_id = ?::uuid and e.date between ?::date and ?::date
         group by e.date`,
    params: [
      account.currency,
      account.family_id,
      account.currency,
      account.currency,
      account.family_id,
      accountId,
      from,
      account.today,
    ],
  });
  return new Map(
    rows.map((row) => [
      row.date,
      {
        inflows: toUnits(row.inflows),
        outflows: toUnits(row.outflows),
        income: toUnits(row.income),
        expenses: toUnits(row.expenses),
        valuation: row.valuation === null ? null : toUnits(row.valuation),
        missing: row.missing.map((code) => ({ from: code, to: account.currency })),
      },
    ]),
  );
}

/**
 * The market value of the account's holdings at the end of each day, in its currency: each
 * security's units x price x the rate of that day, rounded half to even to the minor unit.
 */
async function holdingsValues(
  client: Queryable,
  accountId: string,
  account: SyncedAccount,
  days: readonly string[],
): Promise<DayHoldingsValue[]> {
  if (!days.length) return [];
  const facts = await marketFacts((statement) => runStatement(client, statement), accountId, { today: account.today });
  if (!facts.trades.length) return days.map(() => ({ value: 0n, missing: [] }));
  const held = dailyHoldings(facts.trades, facts.prices, days);
  const foreign = [...new Set(held.flat().map((holding) => holding.currency))].filter(
    (code) => code !== account.currency,
  );
  const rates = await ratesOn(sqlOn(client), account.family_id, foreign, account.currency, days);
  const places = minorDigits(account.currency);
  return held.map((holdings, index) => {
    let value = 0n;
    const missing: CurrencyPair[] = [];
    for (const holding of holdings) {
      const rate = holding.currency === account.currency ? '1' : rates.get(`${holding.currency}|${days[index]}`);
      if (rate) value += productUnits([holding.qty, holding.price, rate], places);
      else if (!missing.some((pair) => pair.from === holding.currency))
        missing.push({ from: holding.currency, to: account.currency });
    }
    return { value, missing };
  });
}

/**
 * The rate from the account's currency into its family's on each day, stored with the day's
 * balance for the balance sheet: '1' when they are the same, null when no rate is known.
 */
async function familyRates(client: Queryable, account: SyncedAccount, days: readonly string[]) {
  if (account.currency === account.family_currency) return days.map(() => '1');
  const rates = await ratesOn(sqlOn(client), account.family_id, [account.currency], account.family_currency, days);
  return days.map((day) => rates.get(`${account.currency}|${day}`) ?? null);
}

/** Writes the recomputed days (only rows that changed), drops days outside the history, and sets the account's figures from today's. */
async function storeBalances(
  client: Queryable,
  accountId: string,
  currency: string,
  first: string,
  today: string,
  rows: readonly DailyBalance[],
  familyRate: readonly (string | null)[],
): Promise<void> {
  const column = (pick: (row: DailyBalance) => bigint) => rows.map((row) => fromUnits(pick(row)));
  await runStatement(client, {
    text: `
      with computed as (
        select * from unnest(?::date[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[],
                             ?::numeric[], ?::boolean[], ?::jsonb[], ?::jsonb[], ?::numeric[])
          as r(date, balance, cash_balance, holdings_value, inflows, outflows, income, expenses, complete,
               missing_exchange_rates, carried_missing_rates, family_rate)
      ), dropped as (
        delete from balances where account_id = ?::uuid and (date < ?::date or date > ?::date)
      )
      insert into balances (account_id, date, currency, balance, cash_balance, holdings_value, inflows, outflows,
                            income, expenses, complete, missing_exchange_rates, carried_missing_rates, family_rate)
      select ?::uuid, date, ?::text, balance, cash_balance, holdings_value, inflows, outflows, income, expenses, complete,
             missing_exchange_rates, carried_missing_rates, family_rate
        from computed
      on conflict (account_id, date) do update
        set currency = excluded.currency, balance = excluded.balance, cash_balance = excluded.cash_balance,
            holdings_value = excluded.holdings_value, inflows = excluded.inflows, outflows = excluded.outflows,
            income = excluded.income, expenses = excluded.expenses, complete = excluded.complete, missing_exchange_rates = excluded.missing_exchange_rates,
            carried_missing_rates = excluded.carried_missing_rates, family_rate = excluded.family_rate,
            updated_at = now()
        where (balances.currency, balances.balance, balances.cash_balance, balances.holdings_value, balances.inflows,
               balances.outflows, balances.income, balances.expenses, balances.complete, balances.missing_exchange_rates,
               balances.carried_missing_rates, balances.family_rate)
          is distinct from (excluded.currency, excluded.balance, excluded.cash_balance, excluded.holdings_value,
               excluded.inflows, excluded.outflows, excluded.income, excluded.expenses, excluded.complete,
               excluded.missing_exchange_rates, excluded.carried_missing_rates, excluded.family_rate)`,
    params: [
      rows.map((row) => row.date),
      column((row) => row.balance),
      column((row) => row.cash),
      column((row) => row.holdings),
      column((row) => row.inflows),
      column((row) => row.outflows),
      column((row) => row.income),
      column((row) => row.expenses),
      rows.map((row) => row.complete),
      rows.map((row) => JSON.stringify(row.missing)),
      rows.map((row) => JSON.stringify(row.carried)),
      familyRate,
      accountId,
      first,
      today,
      accountId,
      currency,
    ],
  });
  // Today's row is the account's figure (stored before this sync when nothing was recomputed).
  await runStatement(client, {
    text: `
      update accounts a
         set balance = b.balance, cash_balance = b.cash_balance, holdings_value = b.holdings_value,
             balance_complete = b.complete, missing_exchange_rates = b.missing_exchange_rates,
             balances_stale_from = null, sync_error = null, updated_at = now()
        from balances b
       where a.id = ?::uuid and b.account_id = a.id and b.date = ?::date`,
    params: [accountId, today],
  });
}
