import type { Clock } from '../core/clock.ts';
import { defineTask } from '../core/job-queue.ts';
import { sqlOn } from '../core/sql.ts';
import { removeExpiredKeys } from './idempotency-store.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Remove the Idempotency-Keys kept past their 24 hours (queued hourly by the worker's crontab). */
    idempotency_expire: Record<string, unknown>;
  }
}

/** The worker's crontab line of the task: at minute 43 of every hour. */
export const IDEMPOTENCY_EXPIRE_CRONTAB = '43 * * * * idempotency_expire';

/** The `idempotency_expire` task: every kept answer past its time (by `clock`) goes. */
export function idempotencyExpireTask(clock: Clock) {
  return defineTask('idempotency_expire', [], async (_payload, helpers) => {
    await helpers.withPgClient((client) => removeExpiredKeys(sqlOn(client), clock()));
  });
}
