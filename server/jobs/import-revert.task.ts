import type { Task } from 'graphile-worker';
import type { PoolClient } from 'pg';
import { revertImportRecords } from '../imports/import-revert.ts';
import { statementRunner } from '../imports/writers/import-writer.ts';
import { accountSyncStatement } from './job-queue.ts';

/**
 * The `import_revert` task: undoes a `reverting` import in one transaction, then it is `pending`
 * again (it can be changed and published anew). A failure rolls everything back; the last attempt
 * marks the import `revert_failed` with the reason.
 */
export const importRevertTask: Task = async (payload, helpers) => {
  const importId = (payload as { import_id?: unknown } | null)?.import_id;
  if (typeof importId !== 'string') throw new Error(`import_revert needs {import_id}, got ${JSON.stringify(payload)}`);
  await helpers.withPgClient(async (client) => {
    const run = statementRunner(client as unknown as PoolClient);
    await client.query('begin');
    try {
      const [record] = await run<{ status: string }>('select status from imports where id = ?::uuid for update', [
        importId,
      ]);
      if (record?.status !== 'reverting') {
        await client.query('commit');
        return;
      }
      const accounts = await revertImportRecords({ id: importId, run });
      for (const accountId of accounts) {
        const sync = accountSyncStatement(accountId);
        await run(sync.text, sync.params);
      }
      await run(
        `update imports set status = 'pending', imported_count = 0, error = null, updated_at = now() where id = ?::uuid`,
        [importId],
      );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      helpers.logger.error(`import_revert failed for import ${importId}: ${String(error)}`, { importId });
      if (helpers.job.attempts < helpers.job.max_attempts) throw error;
      await client.query(
        `update imports set status = 'revert_failed', error = $2, updated_at = now() where id = $1 and status = 'reverting'`,
        [importId, 'The import could not be reverted because of an internal error; it has been logged'],
      );
    }
  });
};
