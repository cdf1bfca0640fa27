import type { ImportSettings } from '../config.ts';
import { sqlOn, type SqlTarget } from '../core/sql.ts';
import type { ImportRecord } from './import.queries.ts';
import { askTurn, LEAVE_TURN, queueTurnJob } from './import-turns.ts';
import type { StagedCounts } from './import-staging.ts';

/**
 * The life of an import, all of its transitions in this file:
 *
 *   (new) | pending --create, PATCH--> staging --job--> pending (or on to importing: publish on create)
 *   staging --job--> complete (a transaction import published on create: written as it is read)
 *   pending --publish--> importing --job--> complete | failed
 *   complete | revert_failed --revert--> reverting --job--> pending | revert_failed
 *   pending | failed --7 days untouched--> expired
 *
 * `staging`, `importing` and `reverting` are work a job does in the family's turn
 * (import-turns.ts): a transition into one of them asks for the turn in the caller's transaction,
 * so the job exists exactly when the status says it runs (or waits), and the transitions out of
 * them leave the turn. The callers of the request-side transitions hold the family's import lock.
 */

/** Why an import cannot be published, or undefined when it can. */
export function publishProblem(
  record: Pick<ImportRecord, 'status' | 'error' | 'rows_count' | 'invalid_rows_count'>,
): string | undefined {
  if (record.status !== 'pending') return `Only a pending import can be published (this one is ${record.status})`;
  if (record.error) return `The CSV cannot be read with this configuration: ${record.error}`;
  if (record.rows_count === 0) return 'The import has no rows';
  if (record.invalid_rows_count > 0) {
    const rows = record.invalid_rows_count === 1 ? '1 invalid row' : `${record.invalid_rows_count} invalid rows`;
    return `The import has ${rows}; fix the configuration or the CSV first`;
  }
  return undefined;
}

/**
 * Why an import's configuration cannot be changed, or undefined when it can: a pending import (it
 * is read again), or one still waiting to be read (it takes the change along).
 */
export function changeProblem(record: Pick<ImportRecord, 'status' | 'queue_position'>): string | undefined {
  if (record.status === 'pending') return undefined;
  if (record.status === 'staging') {
    return record.queue_position === null
      ? 'The import is being read; it can be changed once it is pending'
      : undefined;
  }
  return `Only a pending import can be changed (this one is ${record.status})`;
}

/** (new) | pending -> staging: the CSV is read (again) by `import_stage`; until then no rows, no counts. */
export async function startStaging(target: SqlTarget, familyId: string, id: string, settings: ImportSettings) {
  await sqlOn(target)(
    `update imports set rows_count = 0, valid_rows_count = 0, invalid_rows_count = 0, error = null where id = ?`,
    [id],
  );
  await askTurn(target, familyId, id, 'staging', settings);
}

/**
 * staging -> pending with the counts read; when publishing was asked for on create and the rows
 * allow it, straight on to importing, keeping the family's turn (its job goes to the end of the lane).
 */
export async function finishStaging(
  target: SqlTarget,
  familyId: string,
  id: string,
  counts: StagedCounts,
  publish: boolean,
  settings: ImportSettings,
): Promise<void> {
  const onward = publish && !publishProblem({ status: 'pending', ...counts });
  await sqlOn(target)(
    `update imports set rows_count = ?, valid_rows_count = ?, invalid_rows_count = ?, error = ?,
       publish_when_read = false, imported_count = 0, updated_at = now(),
       status = case when ? then 'importing' else 'pending' end,
       queued_at = case when ? then clock_timestamp() end, holds_turn = ?
     where id = ?::uuid`,
    [counts.rows_count, counts.valid_rows_count, counts.invalid_rows_count, counts.error, onward, onward, onward, id],
  );
  if (onward) await queueTurnJob(target, familyId, id, 'importing', settings);
}

/** staging -> complete: a CSV published on create was written as it was read (import-stage.task.ts). */
export async function finishStagingWritten(
  target: SqlTarget,
  id: string,
  counts: StagedCounts,
  imported: number,
): Promise<void> {
  await sqlOn(target)(
    `update imports set rows_count = ?, valid_rows_count = ?, invalid_rows_count = ?, error = null,
       publish_when_read = false, status = 'complete', ${LEAVE_TURN}, imported_count = ?, updated_at = now()
     where id = ?::uuid`,
    [counts.rows_count, counts.valid_rows_count, counts.invalid_rows_count, imported, id],
  );
}

/** staging -> pending without rows, saying why the CSV could not be read (a file problem, a limit, a timeout). */
export async function failStaging(target: SqlTarget, id: string, reason: string): Promise<void> {
  const run = sqlOn(target);
  await run('delete from import_rows where import_id = ?::uuid', [id]);
  await run(
    `update imports set status = 'pending', ${LEAVE_TURN}, rows_count = 0, valid_rows_count = 0,
       invalid_rows_count = 0, imported_count = 0, error = ?, publish_when_read = false, updated_at = now()
     where id = ?::uuid and status = 'staging'`,
    [reason, id],
  );
}

/** pending -> importing, with its `import_process` job in the family's turn; the caller has checked publishProblem. */
export async function startImporting(target: SqlTarget, familyId: string, id: string, settings: ImportSettings) {
  await sqlOn(target)(`update imports set error = null, imported_count = 0 where id = ?`, [id]);
  await askTurn(target, familyId, id, 'importing', settings);
}

/** importing -> complete, with how many records it wrote. */
export async function finishImporting(target: SqlTarget, id: string, imported: number): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'complete', ${LEAVE_TURN}, imported_count = ?, error = null, updated_at = now()
     where id = ?::uuid`,
    [imported, id],
  );
}

/** importing -> failed, saying why (nothing of it was written). */
export async function failImporting(target: SqlTarget, id: string, reason: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'failed', ${LEAVE_TURN}, error = ?, imported_count = 0, updated_at = now()
     where id = ?::uuid and status = 'importing'`,
    [reason, id],
  );
}

/** Why an import cannot be reverted, or undefined when it can. */
export function revertProblem(record: Pick<ImportRecord, 'status'>): string | undefined {
  if (record.status === 'complete' || record.status === 'revert_failed') return undefined;
  return `Only a complete import can be reverted (this one is ${record.status})`;
}

/** complete | revert_failed -> reverting, with its `import_revert` job in the family's turn; the caller has checked revertProblem. */
export async function startReverting(target: SqlTarget, familyId: string, id: string, settings: ImportSettings) {
  await sqlOn(target)(`update imports set error = null where id = ?`, [id]);
  await askTurn(target, familyId, id, 'reverting', settings);
}

/** reverting -> pending: it can be changed and published anew. */
export async function finishReverting(target: SqlTarget, id: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'pending', ${LEAVE_TURN}, imported_count = 0, error = null, updated_at = now()
     where id = ?::uuid`,
    [id],
  );
}

/** reverting -> revert_failed, saying why. */
export async function failReverting(target: SqlTarget, id: string, reason: string): Promise<void> {
  await sqlOn(target)(
    `update imports set status = 'revert_failed', ${LEAVE_TURN}, error = ?, updated_at = now()
     where id = ?::uuid and status = 'reverting'`,
    [reason, id],
  );
}

/** Why an import cannot be deleted, or undefined when it can: it wrote something, or a job is reading it now. */
export function deleteProblem(record: Pick<ImportRecord, 'status' | 'queue_position'>): string | undefined {
  if (record.status === 'staging') {
    return record.queue_position === null
      ? 'The import is being read; it can be deleted once it is pending'
      : undefined;
  }
  if (record.status === 'pending' || record.status === 'failed' || record.status === 'expired') return undefined;
  const revert = record.status === 'complete' || record.status === 'revert_failed' ? '; revert it first' : '';
  return `Only an import that has written nothing can be deleted (this one is ${record.status})${revert}`;
}

/** The `error` of an expired import. */
export function expiredMessage(days: number): string {
  return `The import expired: it stayed unwritten for ${days} days, so its rows and its CSV were removed`;
}

/**
 * pending | failed, untouched since before `cutoff` -> expired, at most `limit` imports at once:
 * their rows and CSV text are removed. Imports a request has locked are left for the next run.
 * Returns how many expired.
 */
export async function expireImports(target: SqlTarget, cutoff: Date, days: number, limit: number): Promise<number> {
  const run = sqlOn(target);
  const expired = await run<{ id: string }>(
    `with due as (
       select id from imports where status in ('pending', 'failed') and updated_at < ?::timestamptz
       order by updated_at limit ? for update skip locked
     )
     update imports i set status = 'expired', file_id = null, error = ?, updated_at = now()
     from due where i.id = due.id returning i.id`,
    [cutoff.toISOString(), limit, expiredMessage(days)],
  );
  if (expired.length) {
    await run('delete from import_rows where import_id = any(?::uuid[])', [expired.map((row) => row.id)]);
  }
  return expired.length;
}
