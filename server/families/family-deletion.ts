import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';

/**
 * Deletes a family and everything it holds, inside the caller's transaction. Its accounts are
 * locked first, in id order (the lock order: ARCHITECTURE.md), so writes to them that are under
 * way finish before, and those still waiting find no account after (404). The details of entries
 * have no foreign key to their entry (`entryable_id` is polymorphic), so they go by name; the
 * entries next, so their triggers (counts, stale marks, totals) run while the accounts still
 * exist; then the family row, whose foreign keys take the rest: users with their credentials and
 * chats, accounts with their balances and holdings, categories, merchants, tags, rules, imports,
 * rates, prices, securities of its own, transfers.
 */
export async function deleteFamily(tx: EntityManager, familyId: string): Promise<void> {
  await sql(tx, 'select id from accounts where family_id = ? order by id for update', [familyId]);
  for (const [table, kind] of [
    ['transactions', 'Transaction'],
    ['valuations', 'Valuation'],
    ['trades', 'Trade'],
  ] as const) {
    await sql(
      tx,
      `delete from ${table} d using entries e
        where e.entryable_id = d.id and e.family_id = ? and e.entryable_type = '${kind}'`,
      [familyId],
    );
  }
  await sql(tx, 'delete from entries where family_id = ?', [familyId]);
  await sql(tx, 'delete from families where id = ?', [familyId]);
}
