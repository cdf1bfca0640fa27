import type { EntityManager } from '@mikro-orm/postgresql';
import { Unauthorized } from '../core/errors.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { deleteFamily } from '../families/family-deletion.ts';

/**
 * Deletes a user in one transaction: their API keys, tokens, devices, identities and chats go by
 * foreign key; when nobody else is left in the family, the family's data goes too
 * (families/family-deletion.ts). The family row is locked first (`for no key update`: inserts
 * that point at it still run), so two members deleting themselves at once run one after the
 * other and the second sees itself the last. A user deleted meanwhile by a concurrent request has
 * no credential any more: 401.
 */
export async function deleteUser(em: EntityManager, userId: string): Promise<void> {
  await writeUnit(em, async (tx) => {
    const [user] = await sql<{ family_id: string }>(tx, 'select family_id from users where id = ?', [userId]);
    if (!user) throw new Unauthorized();
    await sql(tx, 'select 1 from families where id = ? for no key update', [user.family_id]);
    const [me] = await sql(tx, 'select 1 from users where id = ? for update', [userId]);
    if (!me) throw new Unauthorized();
    const [others] = await sql(tx, 'select 1 from users where family_id = ? and id <> ? limit 1', [
      user.family_id,
      userId,
    ]);
    if (others) await sql(tx, 'delete from users where id = ?', [userId]);
    else await deleteFamily(tx, user.family_id);
  });
}
