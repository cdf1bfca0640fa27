import { EventEmitter } from 'node:events';
import { run, runOnce, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import type { AiProviderConfig } from '../config.ts';
import { accountSyncTask } from '../accounts/account-sync.task.ts';
import { queueEveryStaleSync } from '../accounts/account-sync.ts';
import { assistantReplyTask } from '../assistant/assistant-reply.task.ts';
import { importProcessTask } from '../imports/import-process.task.ts';
import { importRevertTask } from '../imports/import-revert.task.ts';
import { workerLogger } from '../core/job-queue.ts';
import { transferSuggestTask } from '../transfers/transfer-suggest.task.ts';
import { isConnectionLoss } from '../db/connection-loss.ts';
import { withSessionOptions } from '../db/session-options.ts';
import { createJobPool } from './job-pool.ts';
import { startWorkerLiveness } from './worker-liveness.ts';

/** What tasks need beyond the database: the assistant's model server, if one is configured. */
export interface TaskSettings {
  ai?: AiProviderConfig | undefined;
  logger?: Logger | undefined;
}

/** Every task the service runs in the background, by identifier. */
export function createTaskList(settings: TaskSettings = {}): TaskList {
  return {
    account_sync: accountSyncTask,
    import_process: importProcessTask,
    import_revert: importRevertTask,
    assistant_reply: assistantReplyTask(settings.ai, settings.logger),
    transfer_suggest: transferSuggestTask,
  };
}

export interface WorkerOptions extends TaskSettings {
  connectionString: string;
  concurrency: number;
  pollIntervalMs: number;
}

/** A running job runner. */
export interface BackgroundWorker {
  /** Lets running jobs finish, then closes the runner's connections. */
  stop(): Promise<void>;
  /** Replaces the runner (after a lost database left it in doubt); its locked jobs are freed. */
  restart(why: string): Promise<void>;
}

/** Accounts whose balances are stale with no sync queued get one (accounts/account-sync.ts). */
async function queueStaleSyncsOnce(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined); // a lost connection also fails the query, which is awaited
  await client.connect();
  try {
    await queueEveryStaleSync(client);
  } finally {
    await client.end();
  }
}

/** Waits before starting a runner again: 1 s, doubling, at most 30 s. */
function restartDelay(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** attempt);
}

/**
 * Starts the job runner; it stops when asked, not on signals: the process owns its shutdown order
 * (HTTP, then jobs, then the database). Before it takes jobs, the jobs left locked by workers that
 * died are released (worker-liveness.ts), and its own workers are marked alive.
 *
 * The runner is supervised: graphile-worker shuts a runner down when it cannot record a job's
 * outcome, so when one ends unasked (the database went away for longer than its retries last), its
 * jobs are unlocked and a new runner starts, with backoff, until the database answers again.
 */
export async function startWorker(options: WorkerOptions): Promise<BackgroundWorker> {
  const { logger } = options;
  // A job whose lock or outcome was in flight when the database went away may stay locked by a
  // runner that no longer runs it, so a lost connection ends with a new runner (its jobs unlocked).
  const liveness = await startWorkerLiveness(
    options.connectionString,
    logger,
    () => void restart('the database connection was lost'),
  );
  let stopped = false;
  let current: { runner: Runner; pool: pg.Pool; poolIds: string[] } | undefined;
  let restarting: Promise<void> | undefined;

  const startRunner = async () => {
    // Pool: two connections per job (an import reports progress beside its transaction) plus the
    // runner's listen and poll connections, so no job can wait for a connection another holds.
    const pool = createJobPool(options.connectionString, options.concurrency * 2 + 2, logger);
    // Each runner's pools are recorded, so that a runner that died can have its jobs unlocked.
    const poolIds: string[] = [];
    const events: WorkerEvents = new EventEmitter();
    events.on('pool:create', (event) => {
      poolIds.push(event.workerPool.id);
      liveness.events.emit('pool:create', event);
    });
    try {
      const runner = await run({
        pgPool: pool,
        concurrency: options.concurrency,
        pollInterval: options.pollIntervalMs,
        noHandleSignals: true,
        logger: workerLogger(logger),
        events,
        taskList: createTaskList(options),
      });
      current = { runner, pool, poolIds };
      runner.promise.then(
        () => void (stopped || current?.runner !== runner || restart('the job runner stopped unasked')),
        (error: unknown) =>
          void (stopped || current?.runner !== runner || restart('the job runner stopped on an error', error)),
      );
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  };

  const restart = (why: string, error?: unknown): Promise<void> =>
    (restarting ??= (async () => {
      logger?.error({ err: error }, `${why}; starting a new one`);
      const previous = current;
      current = undefined;
      await previous?.runner.stop().catch(() => undefined);
      await previous?.pool.end().catch(() => undefined);
      for (let attempt = 0; !stopped; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, restartDelay(attempt)));
        if (stopped) break;
        try {
          if (previous?.poolIds.length) await unlockWorkers(options.connectionString, previous.poolIds);
          await startRunner();
          logger?.info('job runner running again');
          break;
        } catch (failure) {
          logger?.warn({ err: failure }, 'job runner cannot start yet; trying again');
        }
      }
    })().finally(() => (restarting = undefined)));

  try {
    await queueStaleSyncsOnce(options.connectionString);
    await startRunner();
  } catch (error) {
    await liveness.stop();
    throw error;
  }
  return {
    restart: (why) => restart(why),
    async stop() {
      stopped = true;
      await restarting;
      await current?.runner.stop();
      await current?.pool.end();
      await liveness.stop();
    },
  };
}

/** Frees the jobs locked by runner pools of this process that are gone. */
async function unlockWorkers(connectionString: string, poolIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined); // a lost connection also fails the query, which is awaited
  await client.connect();
  try {
    await client.query('select graphile_worker.force_unlock_workers($1::text[])', [poolIds]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Runs every job that is due, then returns once none is due or running: for tests, which wait for
 * the queue to drain. graphile-worker's runOnce can resolve while the completion of its last job
 * is still on its way to the database, so the queue itself is asked.
 */
export async function drainJobs(connectionString: string, settings: TaskSettings = {}): Promise<void> {
  const taskList = createTaskList(settings);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    for (;;) {
      await runOnce({
        connectionString: withSessionOptions(connectionString),
        taskList,
        noHandleSignals: true,
        logger: workerLogger(settings.logger),
      });
      const { rows } = await client.query<{ busy: boolean }>(
        `select exists (select 1 from graphile_worker.jobs
           where locked_at is not null or (run_at <= now() and attempts < max_attempts)) as busy`,
      );
      if (!rows[0]!.busy) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await client.end();
  }
}

/**
 * A statement nobody awaited that failed because the database went away (graphile-worker records
 * job outcomes that way) must not end the process: it is logged and the runner replaced, which
 * frees the job whose outcome was lost. Any other unhandled rejection still ends the process.
 */
export function surviveLostConnections(worker: BackgroundWorker | undefined, logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (!isConnectionLoss(reason)) throw reason;
    logger.error({ err: reason }, 'a statement failed unawaited as the database went away');
    void worker?.restart('a job outcome was lost with the database connection');
  });
}
