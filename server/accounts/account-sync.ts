import { jobCall, queueJob, type QueueOptions } from '../core/job-queue.ts';
import { accountClassification } from './account.view.ts';
import type { AccountType } from './account.entity.ts';
import { runStatement, sqlOn, type Queryable, type SqlTarget, type Statement } from '../core/sql.ts';
import { accountPositions } from '../holdings/account-positions.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Recompute one account's balance and holdings. */
    account_sync: { account_id: string };
  }
}

/**
 * The sync of an account as an SQL call, for a statement that also does other work. The job key
 * makes a burst of writes to one account a single pending sync (a newer request replaces the
 * waiting one).
 */
export function accountSyncCall(accountId: string): Statement {
  return jobCall('account_sync', { account_id: accountId }, syncOptions(accountId));
}

/** One pending sync per account: its job key. */
function syncOptions(accountId: string): QueueOptions {
  return { jobKey: `account_sync:${accountId}` };
}

/**
 * Queues the sync of an account on `target`'s connection, so inside the caller's transaction: the
 * job exists exactly when the write that needs it committed.
 */
export async function queueAccountSync(target: SqlTarget, accountId: string): Promise<void> {
  await queueJob(target, 'account_sync', { account_id: accountId }, syncOptions(accountId));
}

/**
 * Today's balance of an account: its latest valuation on or before today (else the balance it was
 * opened with), plus the flows dated after that valuation up to today. An entry's amount is signed
 * as an outflow, so an asset loses it and a liability grows by it; trades count at their cash
 * amount. Deleted accounts are skipped (a queued sync may outlive its account).
 */
export async function syncAccount(client: Queryable, accountId: string): Promise<void> {
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
            sync_error = null, updated_at = now()
        where a.id = ?::uuid`,
    params: [accountId, accountId, outflowSign, accountId],
  });
}

/**
 * The account's holdings, recomputed from all its trades and the known prices of their
 * securities: rows are upserted by (security, date), so an unchanged position keeps its id, and
 * rows no longer derived are removed.
 */
export async function syncHoldings(client: Queryable, accountId: string): Promise<number> {
  const rows = await accountPositions((statement) => runStatement(client, statement), accountId);
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
      rows.map((row) => row.qty),
      rows.map((row) => row.price),
      rows.map((row) => row.amount),
      rows.map((row) => row.avgCost),
      rows.map((row) => row.currency),
      accountId,
      accountId,
    ],
  });
  return rows.length;
}

/**
 * Queues the sync of every account of the family whose balances a change marked stale (the
 * database marks them: migration 20261129000000), e.g. after exchange rates or prices were posted.
 */
export async function queueStaleSyncs(target: SqlTarget, familyId: string): Promise<number> {
  const stale = await sqlOn(target)<{ id: string }>(
    'select id from accounts where family_id = ?::uuid and balances_stale_from is not null order by id',
    [familyId],
  );
  for (const { id } of stale) await queueAccountSync(target, id);
  return stale.length;
}
