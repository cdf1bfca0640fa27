import { Logger as WorkerLogger, runMigrations, type LogLevel } from 'graphile-worker';
import type { Logger } from 'pino';
import type { EntityManager } from '../db/orm.ts';
import { sql, type Statement } from '../db/sql.ts';

/** graphile-worker's log lines as structured pino lines (scope: worker id, task, job id). */
export function workerLogger(logger: Logger | undefined): WorkerLogger {
  return new WorkerLogger((scope) => (level: LogLevel, message: string, meta?: unknown) => {
    if (!logger) return;
    const fields = { ...scope, ...(meta && typeof meta === 'object' ? meta : {}) };
    if (level === 'error') logger.error(fields, message);
    else if (level === 'warning') logger.warn(fields, message);
    else if (level === 'info') logger.info(fields, message);
    else logger.debug(fields, message);
  });
}

/** graphile-worker's own schema (`graphile_worker`), installed or upgraded by its migrations. */
export async function installJobQueue(connectionString: string, logger?: Logger): Promise<void> {
  await runMigrations({ connectionString, logger: workerLogger(logger) });
}

/** The call that queues an account sync, as an expression; takes the account id and its job key. */
const ACCOUNT_SYNC_CALL = `graphile_worker.add_job('account_sync', json_build_object('account_id', ?::uuid), job_key := ?, job_key_mode := 'replace')`;

/** The account sync call with its values (job key `account_sync:<id>`), for a statement that also does other work. */
export function accountSyncCall(accountId: string): Statement {
  return { text: ACCOUNT_SYNC_CALL, params: [accountId, `account_sync:${accountId}`] };
}

/** The statement that queues an account sync, for connections other than an EntityManager's. */
export function accountSyncStatement(accountId: string): Statement {
  const call = accountSyncCall(accountId);
  return { text: `select ${call.text}`, params: call.params };
}

/**
 * Queues the sync of an account on `em`'s connection, so inside the caller's transaction: the job
 * exists exactly when the write that needs it committed. The job key makes a burst of writes to
 * one account a single pending sync (a newer request replaces the waiting one).
 */
export async function queueAccountSync(em: EntityManager, accountId: string): Promise<void> {
  const sync = accountSyncStatement(accountId);
  await sql(em, sync.text, sync.params);
}
