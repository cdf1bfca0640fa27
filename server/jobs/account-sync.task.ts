import type { PoolClient } from 'pg';
import type { Task } from 'graphile-worker';
import { accountClassification } from '../accounts/account.view.ts';
import type { AccountType } from '../accounts/account.entity.ts';
import { runStatement } from '../db/sql.ts';
import { positions } from '../holdings/holding.positions.ts';

export interface AccountSyncPayload {
  account_id: string;
}

/**
 * Today's balance of an account: its latest valuation on or before today (else the balance it was
 * opened with), plus the flows dated after that valuation up to today. An entry's amount is signed
 * as an outflow, so an asset loses it and a liability grows by it; trades count at their cash
 * amount. Deleted accounts are skipped (a queued sync may outlive its account).
 */
export async function syncAccount(client: PoolClient, accountId: string): Promise<void> {
  const [account] = await runStatement<{ account_type: AccountType }>(client, {
    text: 'select account_type from accounts where id = ?::uuid for update',
    params: [accountId],
  });
  if (!account) return;
  const outflowSign = accountClassification(account.account_type) === 'asset' ? -1 : 1;
  await runStatement(client, {
    text: `
      with anchor as (
        select e.date, e.amount from entries e
        where e.account_id = ?::uuid and e.entryable_type = 'Valuation' and e.date <= current_date
        order by e.date desc, e.created_at desc limit 1
      ), flows as (
        select coalesce(sum(e.amount), 0) as total from entries e
        where e.account_id = ?::uuid and e.entryable_type <> 'Valuation' and not e.excluded
          and e.date <= current_date and e.date > coalesce((select date from anchor), '-infinity'::date)
      )
      update accounts a
        set balance = coalesce((select amount from anchor), a.opening_balance) + ?::int * (select total from flows),
            updated_at = now()
        where a.id = ?::uuid`,
    params: [accountId, accountId, outflowSign, accountId],
  });
}

/** Today as PostgreSQL sees it (the balance query's `current_date`), so both parts of a sync agree. */
async function today(client: PoolClient): Promise<string> {
  const [row] = await runStatement<{ today: string }>(client, {
    text: "select to_char(current_date, 'YYYY-MM-DD') as today",
    params: [],
  });
  return row!.today;
}

/**
 * The account's holdings, recomputed from all its trades and the known prices of their
 * securities: rows are upserted by (security, date), so an unchanged position keeps its id, and
 * rows no longer derived are removed.
 */
export async function syncHoldings(client: PoolClient, accountId: string): Promise<number> {
  const trades = await runStatement<{
    security_id: string;
    date: string;
    qty: string;
    price: string;
    currency: string;
  }>(client, {
    text: `select t.security_id, to_char(e.date, 'YYYY-MM-DD') as date, t.qty::text as qty, t.price::text as price, t.currency
             from entries e join trades t on t.id = e.entryable_id
            where e.account_id = ?::uuid and e.entryable_type = 'Trade'
            order by e.date, e.created_at, e.id`,
    params: [accountId],
  });
  const securityIds = [...new Set(trades.map((trade) => trade.security_id))];
  const prices = await runStatement<{ security_id: string; date: string; price: string }>(client, {
    text: `select security_id, to_char(date, 'YYYY-MM-DD') as date, price::text as price
             from security_prices where security_id = any(?::uuid[]) and date <= current_date`,
    params: [securityIds],
  });
  const rows = positions(
    trades.map((trade) => ({
      securityId: trade.security_id,
      date: trade.date,
      qty: Number(trade.qty),
      price: Number(trade.price),
      currency: trade.currency,
    })),
    prices.map((price) => ({ securityId: price.security_id, date: price.date, price: Number(price.price) })),
    await today(client),
  );
  await runStatement(client, {
    text: `
      with derived as (
        select * from unnest(?::uuid[], ?::date[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[], ?::text[])
          as d(security_id, date, qty, price, amount, avg_cost, currency)
      ), removed as (
        delete from holdings h where h.account_id = ?::uuid
          and not exists (select 1 from derived d where d.security_id = h.security_id and d.date = h.date)
      )
      insert into holdings (account_id, security_id, date, qty, price, amount, avg_cost, currency)
        select ?::uuid, security_id, date, qty, price, amount, avg_cost, currency from derived
      on conflict (account_id, security_id, date) do update
        set qty = excluded.qty, price = excluded.price, amount = excluded.amount, avg_cost = excluded.avg_cost,
            currency = excluded.currency, updated_at = now()
        where (holdings.qty, holdings.price, holdings.amount, holdings.avg_cost, holdings.currency)
          is distinct from (excluded.qty, excluded.price, excluded.amount, excluded.avg_cost, excluded.currency)`,
    params: [
      rows.map((row) => row.securityId),
      rows.map((row) => row.date),
      rows.map((row) => String(row.qty)),
      rows.map((row) => String(row.price)),
      rows.map((row) => String(row.amount)),
      rows.map((row) => (row.avgCost === null ? null : String(row.avgCost))),
      rows.map((row) => row.currency),
      accountId,
      accountId,
    ],
  });
  return rows.length;
}

/** The `account_sync` task: one account, in one transaction. */
export const accountSyncTask: Task = async (payload, helpers) => {
  const accountId = (payload as Partial<AccountSyncPayload> | null)?.account_id;
  if (typeof accountId !== 'string') throw new Error(`account_sync needs {account_id}, got ${JSON.stringify(payload)}`);
  await helpers.withPgClient(async (client) => {
    await client.query('begin');
    try {
      await syncAccount(client as unknown as PoolClient, accountId);
      await syncHoldings(client as unknown as PoolClient, accountId);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  });
};
