import { balanceBoundRefusal } from '../balances/balance-bound.ts';
import type { ImportSettings } from '../config.ts';
import { inTransaction, isQueryCanceled, sqlOn } from '../core/sql.ts';
import { failImporting, finishImporting } from './import-lifecycle.ts';
import { turnTask } from './import-turns.ts';
import { ImportDataError, queueSyncs, writeAll, type ImportJob, type WriteOutcome } from './writers/import-writer.ts';
import { writeAccounts } from './writers/account-writer.ts';
import { writeCategories } from './writers/category-writer.ts';
import { writeExchangeRates } from './writers/exchange-rate-writer.ts';
import { writeRules } from './writers/rule-writer.ts';
import { writeTrades } from './writers/trade-writer.ts';
import { RANGE_WRITERS } from './writers/transaction-writer.ts';

interface ImportToProcess {
  family_id: string;
  type: string;
  status: string;
  account_id: string | null;
  rows_count: number;
  family_currency: string;
}

/** The writer of each import type. */
const WRITERS: Record<string, (job: ImportJob) => Promise<WriteOutcome>> = {
  TransactionImport: (job) => writeAll(job, RANGE_WRITERS.TransactionImport),
  ExternalImport: (job) => writeAll(job, RANGE_WRITERS.ExternalImport),
  TradeImport: writeTrades,
  AccountImport: writeAccounts,
  CategoryImport: writeCategories,
  RuleImport: writeRules,
  ExchangeRateImport: writeExchangeRates,
};

/** Why the job failed, in words for the import's `error` (internal details only in the log). */
function failureMessage(error: unknown, settings: ImportSettings): string {
  if (error instanceof ImportDataError) return error.message;
  if (isQueryCanceled(error)) {
    return `The import was stopped: one of its steps took longer than the ${settings.statementTimeoutMs} ms an import step may take; nothing was written`;
  }
  return (
    balanceBoundRefusal(error) ?? 'The import could not be written because of an internal error; it has been logged'
  );
}

/**
 * The `import_process` task: writes every row of an `importing` import in ONE transaction, so a
 * failure or a killed worker leaves nothing half-written (PostgreSQL rolls back; the job runs
 * again and finds the import still `importing`). The import row is not locked until the end, so
 * progress written on a second connection stays visible while the rows go in; an advisory lock
 * keeps two runs of one import apart. Data problems, and a step that runs past the statement
 * timeout of import work, end the import `failed` at once; other errors are retried, and the last
 * attempt marks it `failed`.
 */
export function importProcessTask(settings: ImportSettings) {
  return turnTask('import_process', 'importing', settings, async ({ importId, client, helpers, lastAttempt }) => {
    const progress = (imported: number) =>
      helpers.withPgClient(async (progressClient) => {
        await sqlOn(progressClient)(
          `update imports set imported_count = ?, updated_at = now() where id = ?::uuid and status = 'importing'`,
          [imported, importId],
        );
      });
    try {
      await inTransaction(
        client,
        async (run) => {
          await run('select pg_advisory_xact_lock(hashtext(?))', [`import:${importId}`]);
          const [record] = await run<ImportToProcess>(
            `select i.family_id, i.type, i.status, i.account_id, i.rows_count, f.currency as family_currency
             from imports i join families f on f.id = i.family_id where i.id = ?::uuid`,
            [importId],
          );
          // Done by an earlier run, or changed meanwhile: nothing to do.
          if (!record || record.status !== 'importing') return;
          const writer = WRITERS[record.type];
          if (!writer) throw new ImportDataError(`${record.type} imports cannot be processed yet`);
          const outcome = await writer({
            id: importId,
            familyId: record.family_id,
            accountId: record.account_id,
            familyCurrency: record.family_currency.trim(),
            rowsCount: record.rows_count,
            run,
            progress,
          });
          await queueSyncs(client, record.family_id, outcome);
          await finishImporting(client, importId, outcome.imported);
        },
        { statementTimeoutMs: settings.statementTimeoutMs },
      );
    } catch (error) {
      // The database refusing rows for the balance bound is the data's problem too: retrying cannot fix it.
      const final =
        error instanceof ImportDataError ||
        isQueryCanceled(error) ||
        balanceBoundRefusal(error) !== undefined ||
        lastAttempt;
      helpers.logger.error(`import_process failed for import ${importId}: ${String(error)}`, { importId });
      if (!final) throw error;
      await failImporting(client, importId, failureMessage(error, settings));
    }
  });
}
