import { NotFound } from '../core/errors.ts';
import { queueJob } from '../core/job-queue.ts';
import { sqlOn, type Sql, type SqlTarget } from '../core/sql.ts';
import { deleteEntriesWithDetails } from '../entries/entry-deletion.ts';
import { deleteImportsOfAccount } from '../imports/import.service.ts';
import { queueAccountSync, queueStaleSyncs } from './account-sync.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Delete an account marked `pending_deletion`, a chunk of entries at a time. */
    account_delete: { account_id: string };
  }
}

/**
 * Entries an account may hold to be deleted within the request; a larger one is deleted by the
 * `account_delete` job, which deletes this many per transaction, so no transaction holds the
 * account's lock (and its transfer partners') for long.
 */
export const ENTRIES_DELETED_AT_ONCE = 1000;

/**
 * Locks the account and the accounts on the other side of its transfers, in id order (the lock
 * order: deleting an entry of a transfer deletes the transfer, which marks the other side's
 * balances stale). Returns those other accounts.
 */
async function lockWithTransferPartners(run: Sql, familyId: string, accountId: string): Promise<string[]> {
  const partners = await run<{ id: string }>(
    `select distinct case when o.account_id = ?::uuid then i.account_id else o.account_id end as id
       from transfers x join entries o on o.id = x.outflow_entry_id join entries i on i.id = x.inflow_entry_id
      where x.family_id = ?::uuid and ?::uuid in (o.account_id, i.account_id) and o.account_id <> i.account_id`,
    [accountId, familyId, accountId],
  );
  const ids = partners.map((partner) => partner.id);
  await run('select id from accounts where id = any(?::uuid[]) order by id for update', [[accountId, ...ids]]);
  return ids;
}

/** Deletes up to `limit` entries of the account (all of them with null) with their details. */
async function deleteEntries(run: Sql, accountId: string, limit: number | null): Promise<void> {
  await deleteEntriesWithDetails(run, 'id in (select id from entries where account_id = ?::uuid limit ?::bigint)', [
    accountId,
    limit,
  ]);
}

/**
 * Deletes the account outright, in the caller's transaction that holds its lock: its imports that
 * wrote nothing first (422 while one is in progress: nothing else is touched yet), then its
 * entries, then the row, whose foreign keys take balances, holdings and the counts; the other
 * sides of its transfers get their sync.
 */
async function deleteWhole(target: SqlTarget, familyId: string, accountId: string) {
  await deleteImportsOfAccount(target, familyId, accountId);
  await deleteEntries(sqlOn(target), accountId, null);
  await sqlOn(target)('delete from accounts where id = ?::uuid', [accountId]);
  // Every account the cascades marked stale: the partners locked, and one a transfer made meanwhile joined.
  await queueStaleSyncs(target, familyId);
}

/**
 * Deletes an account of the family in the caller's transaction: at once when it holds at most
 * ENTRIES_DELETED_AT_ONCE entries (`deleted`), else it is marked `pending_deletion` and the
 * `account_delete` job is queued (`pending`; also for an account already being deleted). Writes
 * waiting on its lock find no account (or one being deleted, which takes none) afterwards.
 */
export async function deleteAccount(
  tx: SqlTarget,
  familyId: string,
  accountId: string,
): Promise<'deleted' | 'pending'> {
  const run = sqlOn(tx);
  const [found] = await run('select 1 from accounts where id = ?::uuid and family_id = ?::uuid', [accountId, familyId]);
  if (!found) throw NotFound.entity('Account');
  await lockWithTransferPartners(run, familyId, accountId);
  // Read again under the lock: a concurrent delete may have won.
  const [account] = await run<{ status: string; entries: number }>(
    `select a.status, (select coalesce(sum(c.entries), 0) from account_entry_counts c where c.account_id = a.id)::int
            as entries
       from accounts a where a.id = ?::uuid`,
    [accountId],
  );
  if (!account) throw NotFound.entity('Account');
  if (account.status === 'pending_deletion') return 'pending';
  if (account.entries > ENTRIES_DELETED_AT_ONCE) {
    // Its imports are settled now, so that the request says at once when one stands in the way.
    await deleteImportsOfAccount(tx, familyId, accountId);
    await run(`update accounts set status = 'pending_deletion', updated_at = now() where id = ?::uuid`, [accountId]);
    await queueJob(tx, 'account_delete', { account_id: accountId }, { jobKey: `account_delete:${accountId}` });
    return 'pending';
  }
  await deleteWhole(tx, familyId, accountId);
  return 'deleted';
}

/**
 * One step of the `account_delete` job, in the caller's transaction: a chunk of the account's
 * entries, or, when at most a chunk is left, the account itself with them. Returns true when the
 * account is gone (or was never pending deletion).
 */
export async function deleteAccountStep(target: SqlTarget, accountId: string): Promise<boolean> {
  const run = sqlOn(target);
  const [account] = await run<{ family_id: string }>(
    `select family_id from accounts where id = ?::uuid and status = 'pending_deletion'`,
    [accountId],
  );
  if (!account) return true;
  const partners = await lockWithTransferPartners(run, account.family_id, accountId);
  const [more] = await run('select 1 from entries where account_id = ?::uuid offset ?::bigint limit 1', [
    accountId,
    ENTRIES_DELETED_AT_ONCE,
  ]);
  if (!more) {
    await deleteWhole(target, account.family_id, accountId);
    return true;
  }
  await deleteEntries(run, accountId, ENTRIES_DELETED_AT_ONCE);
  for (const partner of partners) await queueAccountSync(target, partner);
  return false;
}
