import type { ImportSettings } from '../config.ts';
import { inTransaction, isQueryCanceled } from '../core/sql.ts';
import type { ImportConfiguration, ImportType } from './import-configuration.ts';
import { failStaging, finishStaging } from './import-lifecycle.ts';
import { stageRows } from './import-staging.ts';
import { turnTask } from './import-turns.ts';
import { ImportFileProblem } from './row-reader.ts';

interface ImportToStage {
  family_id: string;
  type: ImportType;
  configuration: ImportConfiguration;
  account_id: string | null;
  raw_file_content: string;
  publish_when_read: boolean;
}

/** Why reading failed, in words for the import's `error` (internal details only in the log). */
function stagingFailure(error: unknown, settings: ImportSettings): string {
  if (error instanceof ImportFileProblem) return error.message;
  if (isQueryCanceled(error)) {
    return `reading the CSV was stopped: one of its steps took longer than the ${settings.statementTimeoutMs} ms an import step may take`;
  }
  return 'the CSV could not be read because of an internal error; it has been logged';
}

/**
 * The `import_stage` task: reads a `staging` import's CSV into its rows in one transaction, within
 * the import limits (rows, staged bytes, statement time), then the import is `pending` (or goes on
 * to `importing` when publishing was asked for on create). A file problem, a limit or a timeout
 * rolls the rows back and leaves the import `pending` with `error` at once; other errors are
 * retried, and the last attempt does the same.
 */
export function importStageTask(settings: ImportSettings) {
  return turnTask('import_stage', 'staging', settings, async ({ importId, client, helpers, lastAttempt }) => {
    try {
      await inTransaction(
        client,
        async (run) => {
          // Not `for update`: the rows' foreign key takes a key-share lock on the import.
          const [record] = await run<ImportToStage>(
            `select family_id, type, configuration, account_id, raw_file_content, publish_when_read
             from imports where id = ?::uuid and status = 'staging' for no key update`,
            [importId],
          );
          if (!record) return;
          const counts = await stageRows(
            run,
            importId,
            record.family_id,
            record.raw_file_content,
            {
              type: record.type,
              configuration: record.configuration,
              hasAccount: record.account_id !== null,
              today: new Date().toISOString().slice(0, 10),
            },
            settings,
          );
          await finishStaging(client, record.family_id, importId, counts, record.publish_when_read, settings);
        },
        { statementTimeoutMs: settings.statementTimeoutMs },
      );
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
