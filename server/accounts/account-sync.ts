import { jobCall, queueJob, type QueueOptions } from '../core/job-queue.ts';
import { runStatement, sqlOn, type Queryable, type SqlTarget, type Statement } from '../core/sql.ts';
import { accountPositions } from '../holdings/account-positions.ts';
import { syncBalances } from '../balances/balance-sync.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Recompute one account's holdings and daily balances. */
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
 * Recomputes an account's holdings, then its daily balances (their rates follow the holdings'
 * currencies), inside the caller's transaction. The account row is locked first, as by every write
 * (accounts/account-lock.ts). A deleted account is skipped: a queued sync may outlive it. Then the
 * family's other accounts that a cascade marked stale without queueing their sync get one (a
 * transfer removed with its other side's import, say).
 */
export async function syncAccount(client: Queryable, accountId: string): Promise<void> {
  const [account] = await runStatement<{ family_id: string }>(client, {
    text: 'select family_id from accounts where id = ?::uuid for no key update',
    params: [accountId],
  });
  if (!account) return;
  await syncHoldings(client, accountId);
  await syncBalances(client, accountId);
  await queueStaleSyncs(client, account.family_id);
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
 * Queues the sync of every account whose balances are marked stale without a sync on the way: at
 * start-up, so accounts that existed before daily balances (migration 20261129000000) get theirs.
 */
export async function queueEveryStaleSync(client: Queryable): Promise<number> {
  const stale = await runStatement<{ id: string }>(client, {
    text: `select a.id from accounts a where a.balances_stale_from is not null
             and not exists (select 1 from graphile_worker.jobs j
                              where j.key = 'account_sync:' || a.id and j.attempts < j.max_attempts)
           order by a.id`,
    params: [],
  });
  for (const { id } of stale) await queueAccountSync(client, id);
  return stale.length;
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
