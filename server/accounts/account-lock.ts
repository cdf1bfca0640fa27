import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFound } from '../core/errors.ts';
import { sql } from '../core/sql.ts';
import { accountSyncCall } from './account-sync.ts';

/**
 * The lock order of every write of an entry: the account row first, before entries, their details,
 * taggings, the entry counts kept by triggers and the job queue. Writes to one account then run one
 * after the other instead of deadlocking on those rows in different orders (the account sync job
 * takes the same lock first). Returns the account, or 404 when the family has no such account (or
 * it is being deleted).
 * The mode is `for no key update` wherever an account is written (deleting one takes `for update`):
 * writes still queue behind each other and behind a deletion, but a row that only refers to the
 * account (a new import's foreign key: a key-share lock) does not wait for a write that can hold
 * the account for minutes, such as an import written as it is read.
 * With `queueSync`, the same statement queues the account's sync once the row is locked: one round
 * trip fewer while the lock is held (writes to one account queue behind it: bench/README.md).
 */
export async function lockAccount<Row extends { id: string } = { id: string }>(
  tx: EntityManager,
  familyId: string,
  accountId: string,
  columns = 'id',
  options: { queueSync?: boolean } = {},
): Promise<Row> {
  // An account being deleted takes no more entries: 404, as once it is gone.
  const lock = `select ${columns} from accounts where id = ? and family_id = ? and status <> 'pending_deletion' for no key update`;
  const sync = accountSyncCall(accountId);
  // The outer select runs the call for the row the CTE has locked (never before, never without one).
  const [account] = options.queueSync
    ? await sql<Row>(tx, `with locked as (${lock}) select locked.*, ${sync.text} is not null as queued from locked`, [
        accountId,
        familyId,
        ...sync.params,
      ])
    : await sql<Row>(tx, lock, [accountId, familyId]);
  if (!account) throw NotFound.entity('Account');
  return account;
}

/**
 * Locks the account of an entry of `kind`, then reads the entry again under that lock: a concurrent
 * delete that committed meanwhile makes it a 404 here rather than a failure later.
 */
export async function lockEntryAccount(
  tx: EntityManager,
  familyId: string,
  entryId: string,
  kind: 'Transaction' | 'Valuation' | 'Trade',
): Promise<string> {
  const [owner] = await sql<{ account_id: string }>(
    tx,
    'select account_id from entries where id = ? and family_id = ? and entryable_type = ?',
    [entryId, familyId, kind],
  );
  if (owner) {
    await lockAccount(tx, familyId, owner.account_id);
    // A new statement sees what committed while this one waited for the lock.
    const [still] = await sql(tx, 'select 1 from entries where id = ? and account_id = ?', [entryId, owner.account_id]);
    if (still) return owner.account_id;
  }
  throw NotFound.entity(kind);
}

/**
 * Locks, in id order, the accounts holding transactions whose `column` is `recordId`: a change to
 * all of them at once (their category or merchant deleted, a merchant renamed, which rewrites
 * their entries' search text) keeps the lock order of every entry write.
 */
export async function lockAccountsOfTransactions(
  tx: EntityManager,
  column: 'category_id' | 'merchant_id',
  recordId: string,
): Promise<void> {
  await sql(
    tx,
    `select a.id from accounts a
      where a.id in (select e.account_id from transactions t join entries e on e.entryable_id = t.id
                      where t.${column} = ?)
      order by a.id for no key update`,
    [recordId],
  );
}
