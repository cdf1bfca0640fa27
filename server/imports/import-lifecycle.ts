import { ValidationFailed } from '../core/errors.ts';
import { queueJob } from '../core/job-queue.ts';
import { sqlOn, type SqlTarget } from '../core/sql.ts';
import type { ImportRecord } from './import.queries.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Write every row of an `importing` import, in one transaction. */
    import_process: { import_id: string };
    /** Undo a `reverting` import, in one transaction. */
    import_revert: { import_id: string };
  }
}

/**
 * The life of an import, all of its transitions in this file:
 *
 *   pending --publish--> importing --job--> complete | failed
 *   complete | revert_failed --revert--> reverting --job--> pending | revert_failed
 *
 * A transition that queues a job does so in the caller's transaction, so the job exists exactly
 * when the status says it runs. One job key per import and 3 attempts at most.
 */
async function queueImportJob(target: SqlTarget, task: 'import_process' | 'import_revert', id: string) {
  await queueJob(target, task, { import_id: id }, { jobKey: `import:${id}`, maxAttempts: 3 });
}

/** Why an import cannot be published, or undefined when it can. */
export function publishProblem(record: ImportRecord): string | undefined {
  if (record.status !== 'pending') return `Only a pending import can be published (this one is ${record.status})`;
  if (record.error) return `The CSV cannot be read with this configuration: ${record.error}`;
  if (record.rows_count === 0) return 'The import has no rows';
  if (record.invalid_rows_count > 0) {
    const rows = record.invalid_rows_count === 1 ? '1 invalid row' : `${record.invalid_rows_count} invalid rows`;
    return `The import has ${rows}; fix the configuration or the CSV first`;
  }
  return undefined;
}

/** pending -> importing, with its `import_process` job; the caller has checked publishProblem. */
export async function startImporting(target: SqlTarget, id: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'importing', error = null, imported_count = 0, updated_at = now() where id = ?`,
    [id],
  );
  await queueImportJob(target, 'import_process', id);
}

/** importing -> complete, with how many records it wrote. */
export async function finishImporting(target: SqlTarget, id: string, imported: number): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'complete', imported_count = ?, error = null, updated_at = now() where id = ?::uuid`,
    [imported, id],
  );
}

/** importing -> failed, saying why (nothing of it was written). */
export async function failImporting(target: SqlTarget, id: string, reason: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'failed', error = ?, imported_count = 0, updated_at = now()
     where id = ?::uuid and status = 'importing'`,
    [reason, id],
  );
}

/** complete | revert_failed -> reverting, with its `import_revert` job; 422 from any other status. */
export async function startReverting(target: SqlTarget, record: ImportRecord): Promise<void> {
  if (record.status !== 'complete' && record.status !== 'revert_failed') {
    throw new ValidationFailed([{ message: `Only a complete import can be reverted (this one is ${record.status})` }]);
  }
  await sqlOn(target)(`update imports set status = 'reverting', error = null, updated_at = now() where id = ?`, [
    record.id,
  ]);
  await queueImportJob(target, 'import_revert', record.id);
}

/** reverting -> pending: it can be changed and published anew. */
export async function finishReverting(target: SqlTarget, id: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'pending', imported_count = 0, error = null, updated_at = now() where id = ?::uuid`,
    [id],
  );
}

/** reverting -> revert_failed, saying why. */
export async function failReverting(target: SqlTarget, id: string, reason: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'revert_failed', error = ?, updated_at = now() where id = ?::uuid and status = 'reverting'`,
    [reason, id],
  );
}
