import { setImmediate } from 'node:timers/promises';
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

/** Staged batches the reading may run ahead of the connection (memory stays bounded: a few MB of JSON). */
const AHEAD = 8;

/**
 * Writes staged rows as they are stored (publish on create): `range` is called, on the staging
 * transaction's connection, for rows `from`..`to` once they are stored, about every `every` rows,
 * for as long as every row read so far is valid.
 */
export interface WriteAsRead {
  every: number;
  range(from: number, to: number): Promise<void>;
}

/**
 * Reads the CSV with the import's configuration and stores its rows (replacing earlier ones), in
 * the caller's transaction, streaming in batches: what `listImportRows` shows and the job writes.
 * An AccountImport's rows naming an account that is taken are then flagged (`account-names.ts`).
 * A file that cannot be read at all, or holds more rows or bytes than `limits` allow, throws an
 * ImportFileProblem as soon as that is known: the caller rolls back, so nothing stays staged.
 * With `write`, stored rows are also written while the next are read; the caller finds whether
 * all were in the counts (no invalid row, no error).
 */
export async function stageRows(
  run: Sql,
  importId: string,
  familyId: string,
  text: string,
  context: ReadContext,
  limits: StagingLimits,
  write?: WriteAsRead,
): Promise<StagedCounts> {
  await run('delete from import_rows where import_id = ?::uuid', [importId]);
  const counts: StagedCounts = { rows_count: 0, valid_rows_count: 0, invalid_rows_count: 0, error: null };
  let staged = 0;
  let batch: string[] = [];
  // The connection's work in order (store a batch, write a range); the reading runs ahead of it by
  // at most AHEAD steps, so PostgreSQL and the CSV parsing each keep a core busy.
  let tail: Promise<void> = Promise.resolve();
  const steps: Promise<void>[] = [];
  const enqueue = async (step: () => Promise<void>) => {
    tail = tail.then(step);
    // Awaited below and at the end; meanwhile a failure is not left unhandled.
    tail.catch(() => undefined);
    steps.push(tail);
    if (steps.length > AHEAD) await steps.shift();
  };
  let writtenThrough = 0;
  const writeStored = async (last: boolean) => {
    if (!write || counts.invalid_rows_count > 0) return;
    const from = writtenThrough + 1;
    const to = counts.rows_count;
    if (to < from || (!last && to - writtenThrough < write.every)) return;
    writtenThrough = to;
    await enqueue(() => write.range(from, to));
  };
  const store = async (rows: string[]) => {
    await enqueue(() => insertBatch(run, importId, rows));
    await writeStored(false);
    // The parsing resolves its promises at once, so it would keep the event loop to itself and the
    // connection's answers (and with them the next step) would wait until it stopped: let them in.
    await setImmediate();
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
    await writeStored(true);
  } finally {
    // A file problem found while the connection works: the caller rolls back once it is done.
    await tail.catch(() => undefined);
  }
  await tail;
  if (context.type === 'AccountImport') {
    const flagged = await flagNameClashes(run, importId, familyId, rows.header('name') ?? 'name');
    counts.valid_rows_count -= flagged;
    counts.invalid_rows_count += flagged;
  }
  return counts;
}
