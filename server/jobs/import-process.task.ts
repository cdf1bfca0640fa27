import type { Task } from 'graphile-worker';
import type { PoolClient } from 'pg';
import {
  ImportDataError,
  statementRunner,
  type ImportJob,
  type WriteOutcome,
} from '../imports/writers/import-writer.ts';
import { writeAccounts } from '../imports/writers/account-writer.ts';
import { writeCategories } from '../imports/writers/category-writer.ts';
import { writeRules } from '../imports/writers/rule-writer.ts';
import { writeTrades } from '../imports/writers/trade-writer.ts';
import { writeTransactions } from '../imports/writers/transaction-writer.ts';
import { accountSyncStatement } from './job-queue.ts';

export interface ImportProcessPayload {
  import_id: string;
}

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
  TransactionImport: (job) => writeTransactions(job, false),
  ExternalImport: (job) => writeTransactions(job, true),
  TradeImport: writeTrades,
  AccountImport: writeAccounts,
  CategoryImport: writeCategories,
  RuleImport: writeRules,
};

/** Why the job failed, in words for the import's `error` (internal details only in the log). */
function failureMessage(error: unknown): string {
  if (error instanceof ImportDataError) return error.message;
  return 'The import could not be written because of an internal error; it has been logged';
}

/**
 * The `import_process` task: writes every row of an `importing` import in ONE transaction, so a
 * failure or a killed worker leaves nothing half-written (PostgreSQL rolls back; the job runs
 * again and finds the import still `importing`). The import row is not locked until the end, so
 * progress written on a second connection stays visible while the rows go in; an advisory lock
 * keeps two runs of one import apart. Data problems end the import `failed` at once; other errors
 * are retried, and the last attempt marks it `failed`.
 */
export const importProcessTask: Task = async (payload, helpers) => {
  const importId = (payload as Partial<ImportProcessPayload> | null)?.import_id;
  if (typeof importId !== 'string') throw new Error(`import_process needs {import_id}, got ${JSON.stringify(payload)}`);
  const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
  const progress = (imported: number) =>
    helpers.withPgClient(async (client) => {
      await client.query(
        `update imports set imported_count = $2, updated_at = now() where id = $1 and status = 'importing'`,
        [importId, imported],
      );
    });

  await helpers.withPgClient(async (client) => {
    const run = statementRunner(client as unknown as PoolClient);
    await client.query('begin');
    try {
      await client.query('select pg_advisory_xact_lock(hashtext($1))', [`import:${importId}`]);
      const [record] = await run<ImportToProcess>(
        `select i.family_id, i.type, i.status, i.account_id, i.rows_count, f.currency as family_currency
         from imports i join families f on f.id = i.family_id where i.id = ?::uuid`,
        [importId],
      );
      if (!record || record.status !== 'importing') {
        // Done by an earlier run, or changed meanwhile: nothing to do.
        await client.query('commit');
        return;
      }
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
      for (const accountId of outcome.accounts) {
        const sync = accountSyncStatement(accountId);
        await run(sync.text, sync.params);
      }
      await run(
        `update imports set status = 'complete', imported_count = ?, error = null, updated_at = now() where id = ?::uuid`,
        [outcome.imported, importId],
      );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      const final = error instanceof ImportDataError || lastAttempt;
      helpers.logger.error(`import_process failed for import ${importId}: ${String(error)}`, { importId });
      if (!final) throw error;
      await client.query(
        `update imports set status = 'failed', error = $2, imported_count = 0, updated_at = now()
         where id = $1 and status = 'importing'`,
        [importId, failureMessage(error)],
      );
    }
  });
};
