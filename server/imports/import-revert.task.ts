import { queueAccountSync, queueStaleSyncs } from '../accounts/account-sync.ts';
import { balanceBoundRefusal } from '../balances/balance-bound.ts';
import type { ImportSettings } from '../config.ts';
import { inTransaction, isQueryCanceled } from '../core/sql.ts';
import { failReverting, finishReverting } from './import-lifecycle.ts';
import { revertImportRecords } from './import-revert.ts';
import { turnTask } from './import-turns.ts';

/**
 * The `import_revert` task: undoes a `reverting` import in one transaction, then it is `pending`
 * again (it can be changed and published anew). A failure rolls everything back; a step that runs
 * past the statement timeout of import work, or the last attempt, marks the import `revert_failed`
 * with the reason.
 */
export function importRevertTask(settings: ImportSettings) {
  return turnTask('import_revert', 'reverting', settings, async ({ importId, client, helpers, lastAttempt }) => {
    try {
      await inTransaction(
        client,
        async (run) => {
          const [record] = await run<{ status: string; family_id: string }>(
            'select status, family_id from imports where id = ?::uuid for update',
            [importId],
          );
          if (record?.status !== 'reverting') return;
          const { accounts, staleSyncs } = await revertImportRecords({ id: importId, run });
          for (const accountId of accounts) await queueAccountSync(client, accountId);
          if (staleSyncs) await queueStaleSyncs(client, record.family_id);
          await finishReverting(client, importId);
        },
        { statementTimeoutMs: settings.statementTimeoutMs },
      );
    } catch (error) {
      helpers.logger.error(`import_revert failed for import ${importId}: ${String(error)}`, { importId });
      // Rates put back that an account's entries since then cannot take (the balance bound), or a
      // step past the statement timeout: final at once, retrying cannot help.
      const refusal = balanceBoundRefusal(error);
      if (!refusal && !isQueryCanceled(error) && !lastAttempt) throw error;
      await failReverting(
        client,
        importId,
        refusal ??
          (isQueryCanceled(error)
            ? `The revert was stopped: one of its steps took longer than the ${settings.statementTimeoutMs} ms an import step may take; nothing was undone`
            : 'The import could not be reverted because of an internal error; it has been logged'),
      );
    }
  });
}
