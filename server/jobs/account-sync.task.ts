import type { PoolClient } from 'pg';
import type { Task } from 'graphile-worker';
import { accountClassification } from '../accounts/account.view.ts';
import type { AccountType } from '../accounts/account.entity.ts';
import { runStatement } from '../db/sql.ts';

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

/** The `account_sync` task: one account, in one transaction. */
export const accountSyncTask: Task = async (payload, helpers) => {
  const accountId = (payload as Partial<AccountSyncPayload> | null)?.account_id;
  if (typeof accountId !== 'string') throw new Error(`account_sync needs {account_id}, got ${JSON.stringify(payload)}`);
  await helpers.withPgClient(async (client) => {
    await client.query('begin');
    try {
      await syncAccount(client as unknown as PoolClient, accountId);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  });
};
