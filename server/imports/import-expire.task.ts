import type { ImportSettings } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import { defineTask } from '../core/job-queue.ts';
import { inTransaction } from '../core/sql.ts';
import { sweepImportFiles } from './import-files.ts';
import { expireImports } from './import-lifecycle.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Expire the imports left unwritten for IMPORT_EXPIRY_DAYS (queued hourly by the worker's crontab). */
    import_expire: Record<string, unknown>;
  }
}

/** Imports expired per transaction: each may hold up to IMPORT_MAX_ROWS staged rows. */
const PER_TRANSACTION = 10;

/** The worker's crontab line of the task: at minute 17 of every hour. */
export const IMPORT_EXPIRE_CRONTAB = '17 * * * * import_expire';

/**
 * The `import_expire` task: every `pending` or `failed` import untouched for `expiryDays` (by
 * `clock`) becomes `expired`, and its rows and CSV text are removed, a few imports per
 * transaction so that no transaction holds many rows' locks for long. Then the stored CSVs no
 * import took go (import-files.ts).
 */
export function importExpireTask(settings: ImportSettings, clock: Clock) {
  return defineTask('import_expire', [], async (_payload, helpers) => {
    const cutoff = new Date(clock() - settings.expiryDays * 86_400_000);
    await helpers.withPgClient(async (client) => {
      let expired: number;
      do {
        expired = await inTransaction(
          client,
          () => expireImports(client, cutoff, settings.expiryDays, PER_TRANSACTION),
          { statementTimeoutMs: settings.statementTimeoutMs },
        );
      } while (expired === PER_TRANSACTION);
      await sweepImportFiles(client);
    });
  });
}
