import type { Sql } from '../../core/sql.ts';

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

/** Fails the import, naming the first row, when a row names an account the family does not have. */
export async function requireRowAccounts(job: ImportJob): Promise<void> {
  const [missing] = await job.run<{ row_number: number; name: string }>(
    `select r.row_number, r."values"->>'account' as name from import_rows r
     where r.import_id = ?::uuid and not exists (
       select 1 from accounts a where a.family_id = ?::uuid and lower(a.name) = lower(r."values"->>'account'))
     order by r.row_number limit 1`,
    [job.id, job.familyId],
  );
  if (missing) {
    throw new ImportDataError(`Row ${missing.row_number}: account '${missing.name}' is not an account of the family`);
  }
}
