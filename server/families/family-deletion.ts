import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, sqlOn } from '../core/sql.ts';
import { deleteEntriesWithDetails } from '../entries/entry-deletion.ts';

/**
 * Deletes a family and everything it holds, inside the caller's transaction. Its accounts are
 * locked first, in id order (the lock order: ARCHITECTURE.md), so writes to them that are under
 * way finish before, and those still waiting find no account after (404). The entries with their
 * details next, so their triggers (counts, stale marks, totals) run while the accounts still
 * exist; then the family row, whose foreign keys take the rest: users with their credentials and
 * chats, accounts with their balances and holdings, categories, merchants, tags, rules, imports,
 * rates, prices, securities of its own, transfers.
 */
export async function deleteFamily(tx: EntityManager, familyId: string): Promise<void> {
  await sql(tx, 'select id from accounts where family_id = ? order by id for update', [familyId]);
  await deleteEntriesWithDetails(sqlOn(tx), 'family_id = ?::uuid', [familyId]);
  await sql(tx, 'delete from families where id = ?', [familyId]);
}
