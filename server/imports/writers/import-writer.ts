import { queueAccountSync, queueStaleSyncs } from '../../accounts/account-sync.ts';
import type { Queryable, Sql } from '../../core/sql.ts';

/** A problem of the import's data that retrying cannot fix: the import ends `failed` with it. */
export class ImportDataError extends Error {}

/** What a writer needs: the import, a statement runner inside the job's transaction, progress reports. */
export interface ImportJob {
  id: string;
  familyId: string;
  accountId: string | null;
  familyCurrency: string;
  rowsCount: number;
  run: Sql;
  /** Rows written so far; shown while the import runs (written outside the job's transaction). */
  progress(imported: number): Promise<void>;
}

export interface WriteOutcome {
  /** Records written (what `stats.imported_count` says). */
  imported: number;
  /** Accounts whose balance must be recomputed. */
  accounts: string[];
  /**
   * The writes moved accounts the writer cannot name (rates): the database marked them stale, and
   * the syncs of every marked account of the family are queued.
   */
  staleSyncs?: boolean;
}

/** Queues the balance syncs of what a write moved, on the writing transaction's connection. */
export async function queueSyncs(client: Queryable, familyId: string, outcome: WriteOutcome): Promise<void> {
  for (const accountId of outcome.accounts) await queueAccountSync(client, accountId);
  if (outcome.staleSyncs) await queueStaleSyncs(client, familyId);
}

/** Rows written per statement set: progress moves in these steps. */
export const CHUNK = 10_000;

/** Runs `write` for each chunk of row numbers, reporting progress after each. */
export async function inChunks(job: ImportJob, write: (from: number, to: number) => Promise<number>): Promise<number> {
  let imported = 0;
  for (let from = 1; from <= job.rowsCount; from += CHUNK) {
    imported += await write(from, Math.min(job.rowsCount, from + CHUNK - 1));
    await job.progress(imported);
  }
  return imported;
}

/**
 * A writer that writes an import's rows range by range, in row order, in one transaction: the
 * process job writes CHUNK rows at a time (writeAll), and the job that reads a CSV published on
 * create writes each range as soon as it is stored (import-staging.ts).
 */
export interface RangeWriter {
  /** Once, before the first range. */
  begin(job: ImportJob): Promise<void>;
  /** Writes the staged rows `from`..`to`, all valid; returns the records written. */
  range(job: ImportJob, from: number, to: number): Promise<number>;
  /** Once, after the last range, with the records written in all. */
  end(job: ImportJob, imported: number): Promise<WriteOutcome>;
}

/** Writes every staged row of `job` with `writer`, CHUNK rows at a time. */
export async function writeAll(job: ImportJob, writer: RangeWriter): Promise<WriteOutcome> {
  await writer.begin(job);
  return writer.end(job, await inChunks(job, (from, to) => writer.range(job, from, to)));
}

/** Fails the import, naming the first row (of `from`..`to`), when a row names an account the family does not have. */
export async function requireRowAccounts(job: ImportJob, from = 1, to = 2 ** 31 - 1): Promise<void> {
  const [missing] = await job.run<{ row_number: number; name: string }>(
    `select r.row_number, r."values"->>'account' as name from import_rows r
     where r.import_id = ?::uuid and r.row_number between ? and ? and not exists (
       select 1 from accounts a where a.family_id = ?::uuid and lower(a.name) = lower(r."values"->>'account'))
     order by r.row_number limit 1`,
    [job.id, from, to, job.familyId],
  );
  if (missing) {
    throw new ImportDataError(`Row ${missing.row_number}: account '${missing.name}' is not an account of the family`);
  }
}
