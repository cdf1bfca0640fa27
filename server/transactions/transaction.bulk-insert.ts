import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../db/sql.ts';

/** One transaction to write in bulk; `amount` is the stored signed decimal string. */
export interface BulkTransaction {
  familyId: string;
  accountId: string;
  date: string;
  amount: string;
  currency: string;
  name: string;
  notes?: string | null;
  categoryId?: string | null;
  merchantId?: string | null;
  tagIds?: string[];
}

/**
 * Writes many transactions with three set-based statements (one JSON parameter each) instead of
 * the unit of work: used for demo data, imports of size and benchmark seeding.
 */
export async function insertTransactions(em: EntityManager, items: BulkTransaction[]): Promise<void> {
  const details: unknown[] = [];
  const entries: unknown[] = [];
  const taggings: unknown[] = [];
  const now = Date.now();
  items.forEach((item, index) => {
    const detailId = randomUUID();
    // Distinct creation times keep the list order (date, then created_at) stable for same-day rows.
    const createdAt = new Date(now + index).toISOString();
    details.push({
      id: detailId,
      category_id: item.categoryId ?? null,
      merchant_id: item.merchantId ?? null,
      created_at: createdAt,
    });
    entries.push({
      id: randomUUID(),
      family_id: item.familyId,
      account_id: item.accountId,
      entryable_id: detailId,
      amount: item.amount,
      currency: item.currency,
      date: item.date,
      name: item.name,
      notes: item.notes ?? null,
      created_at: createdAt,
    });
    for (const tagId of item.tagIds ?? []) taggings.push({ id: randomUUID(), tag_id: tagId, taggable_id: detailId });
  });
  await em.transactional(async (tx) => {
    await sql(
      tx,
      `insert into transactions (id, category_id, merchant_id, created_at, updated_at)
      select id, category_id, merchant_id, created_at, created_at
      from json_to_recordset(?::json) as r(id uuid, category_id uuid, merchant_id uuid, created_at timestamptz)`,
      [JSON.stringify(details)],
    );
    await sql(
      tx,
      `insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name, notes, created_at, updated_at)
      select id, family_id, account_id, 'Transaction', entryable_id, amount, currency, date, name, notes, created_at, created_at
      from json_to_recordset(?::json) as r(id uuid, family_id uuid, account_id uuid, entryable_id uuid, amount numeric,
        currency text, date date, name text, notes text, created_at timestamptz)`,
      [JSON.stringify(entries)],
    );
    if (taggings.length) {
      await sql(
        tx,
        `insert into taggings (id, tag_id, taggable_type, taggable_id)
        select id, tag_id, 'Transaction', taggable_id from json_to_recordset(?::json) as r(id uuid, tag_id uuid, taggable_id uuid)`,
        [JSON.stringify(taggings)],
      );
    }
  });
}
