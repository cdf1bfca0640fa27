import { balanceBoundRefusal } from '../balances/balance-bound.ts';
import type { ImportSettings } from '../config.ts';
import { inTransaction, isQueryCanceled, sqlOn, type Queryable } from '../core/sql.ts';
import type { ImportConfiguration, ImportType } from './import-configuration.ts';
import { failStaging, finishStaging, finishStagingWritten, publishProblem } from './import-lifecycle.ts';
import { stageRows } from './import-staging.ts';
import { turnTask } from './import-turns.ts';
import { ImportFileProblem } from './row-reader.ts';
import { CHUNK, ImportDataError, queueSyncs, type ImportJob, type RangeWriter } from './writers/import-writer.ts';
import { RANGE_WRITERS } from './writers/transaction-writer.ts';

interface ImportToStage {
  family_id: string;
  type: ImportType;
  configuration: ImportConfiguration;
  account_id: string | null;
  raw_file_content: string;
  publish_when_read: boolean;
  family_currency: string;
}

/** What a CSV published on create is written with while it is read; other types wait for `import_process`. */
const WRITE_AS_READ: Partial<Record<ImportType, RangeWriter>> = RANGE_WRITERS;

/** Why reading failed, in words for the import's `error` (internal details only in the log). */
function stagingFailure(error: unknown, settings: ImportSettings): string {
  if (error instanceof ImportFileProblem) return error.message;
  if (isQueryCanceled(error)) {
    return `reading the CSV was stopped: one of its steps took longer than the ${settings.statementTimeoutMs} ms an import step may take`;
  }
  return 'the CSV could not be read because of an internal error; it has been logged';
}

/** Thrown to roll back a read that wrote as it read, when a row turned out invalid or the file unreadable. */
class NotWritable extends Error {}

/**
 * Reads the import's CSV into its rows in one transaction; with `writeAsRead`, a CSV published on
 * create whose type has a range writer is also written in the same transaction as its rows are
 * stored, and the import ends `complete`. Otherwise (or without `writeAsRead`) it ends `pending`,
 * or goes on to `importing` when publishing was asked for and the rows allow it.
 */
async function stage(
  client: Queryable,
  importId: string,
  settings: ImportSettings,
  progress: (imported: number) => Promise<void>,
  writeAsRead: boolean,
): Promise<void> {
  await inTransaction(
    client,
    async (run) => {
      // Not `for update`: the rows' foreign key takes a key-share lock on the import. Writing as it
      // reads, it takes only that lock, so that progress is written on a second connection.
      const [record] = await run<ImportToStage>(
        `select i.family_id, i.type, i.configuration, i.account_id, coalesce(c.content, '') as raw_file_content,
           i.publish_when_read, f.currency as family_currency
         from imports i join families f on f.id = i.family_id left join import_files c on c.id = i.file_id
         where i.id = ?::uuid and i.status = 'staging' for ${writeAsRead ? 'key share' : 'no key update'} of i`,
        [importId],
      );
      if (!record) return;
      const context = {
        type: record.type,
        configuration: record.configuration,
        hasAccount: record.account_id !== null,
        today: new Date().toISOString().slice(0, 10),
      };
      const writer = writeAsRead && record.publish_when_read ? WRITE_AS_READ[record.type] : undefined;
      if (!writer) {
        const counts = await stageRows(run, importId, record.family_id, record.raw_file_content, context, settings);
        await finishStaging(client, record.family_id, importId, counts, record.publish_when_read, settings);
        return;
      }
      const job: ImportJob = {
        id: importId,
        familyId: record.family_id,
        accountId: record.account_id,
        familyCurrency: record.family_currency.trim(),
        rowsCount: 0,
        run,
        progress,
      };
      let imported = 0;
      await writer.begin(job);
      const counts = await stageRows(run, importId, record.family_id, record.raw_file_content, context, settings, {
        every: CHUNK,
        range: async (from, to) => {
          imported += await writer.range(job, from, to);
          await progress(imported);
        },
      });
      if (publishProblem({ status: 'pending', ...counts })) throw new NotWritable();
      const outcome = await writer.end(job, imported);
      await queueSyncs(client, record.family_id, outcome);
      await finishStagingWritten(client, importId, counts, outcome.imported);
    },
    { statementTimeoutMs: settings.statementTimeoutMs },
  );
}

/**
 * The `import_stage` task: reads a `staging` import's CSV into its rows in one transaction, within
 * the import limits (rows, staged bytes, statement time), then the import is `pending` (or goes on
 * to `importing` when publishing was asked for on create). A transaction import published on
 * create is written as it is read, in the same transaction, and ends `complete`; when that cannot
 * be (an invalid row, a row the writer refuses, the balance bound), everything rolls back and the
 * CSV is read again without writing, so the import ends as it would have without the shortcut
 * (`pending` with its invalid rows, or `importing` and then `failed` by `import_process`). A file
 * problem, a limit or a timeout rolls the rows back and leaves the import `pending` with `error`
 * at once; other errors are retried, and the last attempt does the same.
 */
export function importStageTask(settings: ImportSettings) {
  return turnTask('import_stage', 'staging', settings, async ({ importId, client, helpers, lastAttempt }) => {
    const progress = (imported: number) =>
      helpers.withPgClient(async (progressClient) => {
        await sqlOn(progressClient)(
          `update imports set imported_count = ?, updated_at = now() where id = ?::uuid and status = 'staging'`,
          [imported, importId],
        );
      });
    try {
      try {
        await stage(client, importId, settings, progress, true);
      } catch (error) {
        if (!(error instanceof NotWritable || error instanceof ImportDataError || balanceBoundRefusal(error)))
          throw error;
        await stage(client, importId, settings, progress, false);
      }
    } catch (error) {
      const final = error instanceof ImportFileProblem || isQueryCanceled(error) || lastAttempt;
      if (!(error instanceof ImportFileProblem)) {
        helpers.logger.error(`import_stage failed for import ${importId}: ${String(error)}`, { importId });
      }
      if (!final) throw error;
      await inTransaction(client, () => failStaging(client, importId, stagingFailure(error, settings)), {
        statementTimeoutMs: settings.statementTimeoutMs,
      });
    }
  });
}
