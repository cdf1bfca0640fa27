import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Statement } from '../core/sql.ts';

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
  /** The rate from `currency` into the account's, when the client gave one. */
  exchangeRate?: string | null;
  /** The client's id of the transaction and where it comes from: both or neither (unique per account). */
  externalId?: string | null;
  source?: string | null;
}

/** The columns of the rows a transaction is written from. */
const INPUT_COLUMNS = `entry_id uuid, detail_id uuid, family_id uuid, account_id uuid, amount numeric, currency text,
  date date, name text, notes text, category_id uuid, merchant_id uuid, created_at timestamptz, tag_ids uuid[],
  import_id uuid, exchange_rate numeric, external_id text, source text`;

/** The rows to write, as one JSON parameter: `json_to_recordset(?::json) as r(...)`. */
export const INPUT_RECORDS = `json_to_recordset(?::json) as r(${INPUT_COLUMNS})`;

/**
 * A bulk writer's table of rows to write (INPUT_RECORDS' columns, then `extraColumns` of its own),
 * gone when its transaction ends.
 */
export function inputTable(table: string, extraColumns: string): string {
  return `create temp table ${table} (${INPUT_COLUMNS}, ${extraColumns}) on commit drop`;
}

/** The three inserts that write the rows of relation `source` (INPUT_RECORDS' columns): details, taggings, entries. */
function writesFrom(source: string) {
  return {
    details: `insert into transactions (id, category_id, merchant_id, created_at, updated_at)
      select detail_id, category_id, merchant_id, created_at, created_at from ${source}`,
    tagged: `insert into taggings (id, tag_id, taggable_type, taggable_id, created_at)
      select gen_random_uuid(), tag_id, 'Transaction', detail_id, created_at from ${source}, unnest(tag_ids) as tag_id`,
    // With its search text: the row trigger that would look it up costs about a quarter of the insert.
    written: `insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name,
      notes, created_at, updated_at, import_id, exchange_rate, external_id, source, search_text)
      select entry_id, family_id, account_id, 'Transaction', detail_id, amount, currency, date, name, notes, created_at,
        created_at, import_id, exchange_rate, external_id, source,
        entry_search_text(name, notes, (select m.name from merchants m where m.id = ${source}.merchant_id))
      from ${source}`,
  };
}

const FROM_INPUT = writesFrom('input');

/**
 * The writes of the rows of a CTE named `input` (details, taggings, entries), as CTEs to follow it:
 * the one way a transaction is written, whether by a request, an import or the demo data. `input`
 * has the columns of INPUT_RECORDS (`import_id` null unless an import writes it, `exchange_rate`,
 * `external_id` and `source` unless the client gave them).
 */
export const WRITE_INPUT = `
  details as (${FROM_INPUT.details}),
  tagged as (${FROM_INPUT.tagged}),
  written as (${FROM_INPUT.written} returning 1)`;

/**
 * The same writes as three statements over a table of a bulk writer's (INPUT_RECORDS' columns), the
 * last one answering `n`, the entries written. Inside a transaction they are as atomic as the one
 * statement, and an import's chunks ran 25-30% faster this way than as WRITE_INPUT's CTEs
 * (bench/README.md, CSV import).
 */
export function writesFromTable(table: string): { details: string; tagged: string; written: string } {
  const writes = writesFrom(table);
  return {
    ...writes,
    written: `with written as (${writes.written} returning 1) select count(*)::int as n from written`,
  };
}

/** One statement writes the details, the entries and the taggings: atomic without a transaction block. */
const INSERT_SQL = `with input as (select * from ${INPUT_RECORDS}), ${WRITE_INPUT} select count(*) from written`;

/** A transaction to write whose currency the statement may supply (null: the account's). */
export type TransactionRecord = Omit<BulkTransaction, 'currency'> & { currency?: string | null };

/** `items` as the JSON of INPUT_RECORDS, with the ids (the entries') they will have, in order. */
export function inputRecords(items: TransactionRecord[]): { json: string; ids: string[] } {
  const now = Date.now();
  const rows = items.map((item, index) => ({
    entry_id: randomUUID(),
    detail_id: randomUUID(),
    family_id: item.familyId,
    account_id: item.accountId,
    amount: item.amount,
    currency: item.currency ?? null,
    date: item.date,
    name: item.name,
    notes: item.notes ?? null,
    category_id: item.categoryId ?? null,
    merchant_id: item.merchantId ?? null,
    // Distinct creation times, the last one now, keep same-day rows in the order given (newest last).
    created_at: new Date(now - (items.length - 1 - index)).toISOString(),
    tag_ids: item.tagIds ?? [],
    exchange_rate: item.exchangeRate ?? null,
    external_id: item.externalId ?? null,
    source: item.source ?? null,
  }));
  return { json: JSON.stringify(rows), ids: rows.map((row) => row.entry_id) };
}

/** The statement that writes `items`, and the ids (the entries') they will have, in order. */
export function transactionInsertStatement(items: BulkTransaction[]): { statement: Statement; ids: string[] } {
  const { json, ids } = inputRecords(items);
  return { statement: { text: INSERT_SQL, params: [json] }, ids };
}

/**
 * Writes transactions with one set-based statement instead of the unit of work; returns the new
 * ids in the order given. Used for a single create, demo data and seeding alike.
 */
export async function insertTransactions(em: EntityManager, items: BulkTransaction[]): Promise<string[]> {
  if (!items.length) return [];
  const { statement, ids } = transactionInsertStatement(items);
  await sql(em, statement.text, statement.params);
  return ids;
}
