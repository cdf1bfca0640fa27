import { queueAccountSync, queueStaleSyncs } from '../accounts/account-sync.ts';
import { balanceBoundRefusal } from '../balances/balance-bound.ts';
import { defineTask } from '../core/job-queue.ts';
import { inTransaction } from '../core/sql.ts';
import { failReverting, finishReverting } from './import-lifecycle.ts';
import { revertImportRecords } from './import-revert.ts';

/**
 * The `import_revert` task: undoes a `reverting` import in one transaction, then it is `pending`
 * again (it can be changed and published anew). A failure rolls everything back; the last attempt
 * marks the import `revert_failed` with the reason.
 */
export const importRevertTask = defineTask('import_revert', ['import_id'], async ({ import_id: importId }, helpers) => {
  await helpers.withPgClient(async (client) => {
    try {
      await inTransaction(client, async (run) => {
        const [record] = await run<{ status: string; family_id: string }>(
          'select status, family_id from imports where id = ?::uuid for update',
          [importId],
        );
        if (record?.status !== 'reverting') return;
        const { accounts, staleSyncs } = await revertImportRecords({ id: importId, run });
        for (const accountId of accounts) await queueAccountSync(client, accountId);
        if (staleSyncs) await queueStaleSyncs(client, record.family_id);
        await finishReverting(client, importId);
      });
    } catch (error) {
      helpers.logger.error(`import_revert failed for import ${importId}: ${String(error)}`, { importId });
      // Rates put back that an account's entries since then cannot take (the balance bound): final at once.
      const refusal = balanceBoundRefusal(error);
      if (!refusal && helpers.job.attempts < helpers.job.max_attempts) throw error;
      await failReverting(
        client,
        importId,
        refusal ?? 'The import could not be reverted because of an internal error; it has been logged',
      );
    }
  });
});
