import type { EntityManager } from '@mikro-orm/postgresql';
import { lockAccountsOfTransactions } from '../accounts/account-lock.ts';
import { NotFound, ValidationFailed } from '../core/errors.ts';
import { flushUniqueName } from '../core/flush-unique.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { Merchant } from './merchant.entity.ts';

/**
 * Renames a merchant. Its transactions' entries get the new name in their search text (a trigger of
 * migration 20261128000000), so the accounts holding them are locked first, in the lock order.
 */
export async function renameMerchant(em: EntityManager, familyId: string, id: string, name: string): Promise<void> {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationFailed.at('/merchant/name', 'name must not be blank');
  await writeUnit(em, async (tx) => {
    const merchant = await tx.findOne(Merchant, { id, family: familyId });
    if (!merchant) throw NotFound.entity('Merchant');
    await lockAccountsOfTransactions(tx, 'merchant_id', id);
    merchant.name = trimmed;
    merchant.updatedAt = new Date();
    await flushUniqueName(tx, '/merchant/name');
  });
}

/**
 * Deletes a merchant; its transactions stay without one (foreign key, set null, which the same
 * trigger follows into their search text). Accounts first, then the merchant, as for a category.
 */
export async function deleteMerchant(em: EntityManager, familyId: string, id: string): Promise<void> {
  await writeUnit(em, async (tx) => {
    const [merchant] = await sql(tx, 'select 1 from merchants where id = ? and family_id = ?', [id, familyId]);
    if (!merchant) throw NotFound.entity('Merchant');
    await lockAccountsOfTransactions(tx, 'merchant_id', id);
    const deleted = await sql(tx, 'delete from merchants where id = ? returning id', [id]);
    if (!deleted.length) throw NotFound.entity('Merchant');
  });
}
