import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';
import { ImportFileProblem, readImportRows, type ReadContext, type ReadRow } from './row-reader.ts';

/** Rows written per statement: large enough to amortise the round trip, small enough for memory. */
const BATCH = 2000;

export interface StagedCounts {
  rows_count: number;
  valid_rows_count: number;
  invalid_rows_count: number;
  /** Why the file as a whole cannot be read with this configuration, if it cannot. */
  error: string | null;
}

/** One batch as one JSON document: PostgreSQL parses it once, instead of an array literal of JSON texts. */
async function insertBatch(tx: EntityManager, importId: string, rows: ReadRow[]): Promise<void> {
  await sql(
    tx,
    `insert into import_rows (import_id, row_number, line, valid, fields, "values", errors)
     select ?, r.row_number, r.line, r.errors = '[]'::jsonb, r.fields, r."values", r.errors
     from jsonb_to_recordset(?::jsonb) as r(row_number int, line int, fields jsonb, "values" jsonb, errors jsonb)`,
    [importId, JSON.stringify(rows)],
  );
}

/**
 * Reads the CSV with the import's configuration and stores its rows (replacing earlier ones), in
 * the caller's transaction, streaming in batches: what `listImportRows` shows and the job writes.
 * A file that cannot be read at all stores no rows and says why.
 */
export async function stageRows(
  tx: EntityManager,
  importId: string,
  text: string,
  context: ReadContext,
): Promise<StagedCounts> {
  await sql(tx, 'delete from import_rows where import_id = ?', [importId]);
  const counts: StagedCounts = { rows_count: 0, valid_rows_count: 0, invalid_rows_count: 0, error: null };
  let batch: ReadRow[] = [];
  try {
    for await (const row of readImportRows(text, context)) {
      counts.rows_count++;
      if (row.errors.length) counts.invalid_rows_count++;
      else counts.valid_rows_count++;
      batch.push(row);
      if (batch.length === BATCH) {
        await insertBatch(tx, importId, batch);
        batch = [];
      }
    }
    if (batch.length) await insertBatch(tx, importId, batch);
  } catch (error) {
    if (!(error instanceof ImportFileProblem)) throw error;
    await sql(tx, 'delete from import_rows where import_id = ?', [importId]);
    return { rows_count: 0, valid_rows_count: 0, invalid_rows_count: 0, error: error.message };
  }
  return counts;
}
