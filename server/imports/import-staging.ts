import type { Sql } from '../core/sql.ts';
import { flagNameClashes } from './account-names.ts';
import { ImportFileProblem, readImportRows, type ReadContext } from './row-reader.ts';

/** Rows written per statement: large enough to amortise the round trip, small enough for memory. */
const BATCH = 2000;

export interface StagedCounts {
  rows_count: number;
  valid_rows_count: number;
  invalid_rows_count: number;
  /** Why the file as a whole cannot be read with this configuration, if it cannot. */
  error: string | null;
}

/** How much one import may stage (config.ts ImportSettings). */
export interface StagingLimits {
  maxRows: number;
  /** Bytes of the rows' JSON: cells, values and problems. */
  maxStagedBytes: number;
}

/**
 * One batch as one JSON document (rows already as JSON texts): PostgreSQL parses it once. As
 * `jsonb`: `json_to_recordset` into the same jsonb columns took twice the CPU (bench/README.md).
 */
async function insertBatch(run: Sql, importId: string, rows: string[]): Promise<void> {
  await run(
    `insert into import_rows (import_id, row_number, line, valid, fields, "values", errors)
     select ?::uuid, r.row_number, r.line, r.errors = '[]'::jsonb, r.fields, r."values", r.errors
     from jsonb_to_recordset(?::jsonb) as r(row_number int, line int, fields jsonb, "values" jsonb, errors jsonb)`,
    [importId, `[${rows.join(',')}]`],
  );
}

/**
 * Reads the CSV with the import's configuration and stores its rows (replacing earlier ones), in
 * the caller's transaction, streaming in batches: what `listImportRows` shows and the job writes.
 * An AccountImport's rows naming an account that is taken are then flagged (`account-names.ts`).
 * A file that cannot be read at all, or holds more rows or bytes than `limits` allow, throws an
 * ImportFileProblem as soon as that is known: the caller rolls back, so nothing stays staged.
 */
export async function stageRows(
  run: Sql,
  importId: string,
  familyId: string,
  text: string,
  context: ReadContext,
  limits: StagingLimits,
): Promise<StagedCounts> {
  await run('delete from import_rows where import_id = ?::uuid', [importId]);
  const counts: StagedCounts = { rows_count: 0, valid_rows_count: 0, invalid_rows_count: 0, error: null };
  let staged = 0;
  let batch: string[] = [];
  // One batch is stored while the next is read: PostgreSQL and the CSV parsing each take a core.
  let storing: Promise<void> = Promise.resolve();
  const store = async (rows: string[]) => {
    await storing;
    storing = insertBatch(run, importId, rows);
    // Awaited before the next batch and at the end; meanwhile a failure is not left unhandled.
    storing.catch(() => undefined);
  };
  const rows = readImportRows(text, context);
  try {
    for await (const row of rows) {
      if (++counts.rows_count > limits.maxRows) {
        throw new ImportFileProblem(`the CSV has more than ${limits.maxRows} data rows, the most an import may have`);
      }
      if (row.errors.length) counts.invalid_rows_count++;
      else counts.valid_rows_count++;
      const json = JSON.stringify(row);
      staged += Buffer.byteLength(json);
      if (staged > limits.maxStagedBytes) {
        throw new ImportFileProblem(
          `the rows take more than ${limits.maxStagedBytes} bytes once read (cells, values and problems), the most an import may stage`,
        );
      }
      batch.push(json);
      if (batch.length === BATCH) {
        await store(batch);
        batch = [];
      }
    }
    if (batch.length) await store(batch);
  } finally {
    // A file problem found while a batch is being stored: the caller rolls back once it is done.
    await storing.catch(() => undefined);
  }
  await storing;
  if (context.type === 'AccountImport') {
    const flagged = await flagNameClashes(run, importId, familyId, rows.header('name') ?? 'name');
    counts.valid_rows_count -= flagged;
    counts.invalid_rows_count += flagged;
  }
  return counts;
}
