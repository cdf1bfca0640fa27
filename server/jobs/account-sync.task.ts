import type { PoolClient } from 'pg';
import type { Task } from 'graphile-worker';
import { accountClassification } from '../accounts/account.view.ts';
import type { AccountType } from '../accounts/account.entity.ts';
import { runStatement } from '../db/sql.ts';
import { accountPositions } from '../holdings/account-positions.ts';

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
export async function syncHoldings(client: PoolClient, accountId: string): Promise<number> {
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
 * Why a sync failed, in words fit for the account's owner: PostgreSQL's message names the kind of
 * failure (e.g. "numeric field overflow") without the values involved.
 */
function failureReason(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof message === 'string') {
    return `${message} (SQLSTATE ${code})`;
  }
  return 'an internal error';
}

/** The `account_sync` task: one account, in one transaction. A failure is recorded on the account, then retried. */
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
      // Visible, not silent: the account says its balance is stale until a sync succeeds.
      const reason = failureReason(error);
      await client.query('update accounts set sync_error = $2 where id = $1', [
        accountId,
        `The balance and holdings could not be updated: ${reason}. The update is retried automatically.`,
      ]);
      helpers.logger.error(`account_sync failed for account ${accountId}: ${reason}`, { accountId });
      throw error;
    }
  });
};
