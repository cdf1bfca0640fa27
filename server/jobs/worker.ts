import { EventEmitter } from 'node:events';
import { run, runOnce, type Runner, type RunnerOptions, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import {
  DEFAULT_AI_WORKER_CONCURRENCY,
  importSettings,
  type AiProviderConfig,
  type ImportSettings,
} from '../config.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { accountDeleteTask } from '../accounts/account-delete.task.ts';
import { accountSyncTask } from '../accounts/account-sync.task.ts';
import { queueEveryStaleSync } from '../accounts/account-sync.ts';
import { assistantReplyTask } from '../assistant/assistant-reply.task.ts';
import { IDEMPOTENCY_EXPIRE_CRONTAB, idempotencyExpireTask } from '../idempotency/idempotency-expire.task.ts';
import { IMPORT_EXPIRE_CRONTAB, importExpireTask } from '../imports/import-expire.task.ts';
import { importProcessTask } from '../imports/import-process.task.ts';
import { IMPORT_REVIVE_CRONTAB, importReviveTask } from '../imports/import-revive.task.ts';
import { importRevertTask } from '../imports/import-revert.task.ts';
import { importStageTask } from '../imports/import-stage.task.ts';
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
  /** Import limits and scheduling; the defaults when not given. */
  imports?: ImportSettings | undefined;
  /** The time import and Idempotency-Key expiry go by; tests move it. */
  clock?: Clock | undefined;
}

/** The tasks of the main runner: every task but the assistant's replies. */
function backgroundTasks(settings: TaskSettings): TaskList {
  const imports = settings.imports ?? importSettings({});
  return {
    account_sync: accountSyncTask,
    account_delete: accountDeleteTask,
    import_stage: importStageTask(imports),
    import_process: importProcessTask(imports),
    import_revert: importRevertTask(imports),
    import_expire: importExpireTask(imports, settings.clock ?? systemClock),
    import_revive: importReviveTask(imports),
    idempotency_expire: idempotencyExpireTask(settings.clock ?? systemClock),
    transfer_suggest: transferSuggestTask,
  };
}

/** The assistant's replies, which have a runner of their own (startWorker). */
const assistantTasks = (settings: TaskSettings): TaskList => ({
  assistant_reply: assistantReplyTask(settings.ai, settings.logger),
});

/** Every task the service runs in the background, by identifier. */
export function createTaskList(settings: TaskSettings = {}): TaskList {
  return { ...backgroundTasks(settings), ...assistantTasks(settings) };
}

export interface WorkerOptions extends TaskSettings {
  connectionString: string;
  concurrency: number;
  /** Assistant replies written at once, beside `concurrency` (AI_WORKER_CONCURRENCY). */
  aiConcurrency?: number | undefined;
  pollIntervalMs: number;
  /** How far job connections' backends yield the CPU to requests (WORKER_NICENESS; 0: not at all). */
  niceness?: number | undefined;
}

/** A running job runner. */
export interface BackgroundWorker {
  /** Lets running jobs finish (assistant replies are aborted, to run again), then closes the connections. */
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
 * Starts the job runners (the main one and the assistant's); they stop when asked, not on
 * signals: the process owns its shutdown order (HTTP, then jobs, then the database). Before they
 * take jobs, the jobs left locked by workers that died are released (worker-liveness.ts), and
 * their own workers are marked alive.
 *
 * The runners are supervised: graphile-worker shuts a runner down when it cannot record a job's
 * outcome, so when one ends unasked (the database went away for longer than its retries last),
 * the runners' jobs are unlocked and new runners start, with backoff, until the database answers.
 */
export async function startWorker(options: WorkerOptions): Promise<BackgroundWorker> {
  const { logger } = options;
  const aiConcurrency = options.aiConcurrency ?? DEFAULT_AI_WORKER_CONCURRENCY;
  const runners: RunnerSpec[] = [
    {
      concurrency: options.concurrency,
      // Two connections per job (an import reports progress beside its transaction) plus the
      // runner's listen and poll connections, so no job can wait for a connection another holds.
      poolSize: options.concurrency * 2 + 2,
      taskList: backgroundTasks(options),
      options: { crontab: [IMPORT_EXPIRE_CRONTAB, IMPORT_REVIVE_CRONTAB, IDEMPOTENCY_EXPIRE_CRONTAB].join('\n') },
    },
    {
      // A reply waits on a model server for minutes; on a runner of its own (a runner takes only
      // the jobs of its task list) it never holds a slot a sync or an import needs. Its stop aborts
      // `helpers.abortSignal` at once, not after graphile-worker's 5 s, ending the replies'
      // requests and waits; they stay pending and run again.
      concurrency: aiConcurrency,
      // One connection per reply, plus the runner's listen and poll connections.
      poolSize: aiConcurrency + 2,
      taskList: assistantTasks(options),
      options: {
        // No cron here (the main runner has the crontab): without cron items of its own, a runner
        // reads ./crontab and logs that it failed to.
        parsedCronItems: [],
        gracefulShutdownAbortTimeout: 0,
        // Unbatched, a job's failure is sent without being awaited and can be lost when the stop
        // closes the pool: the reply's job would stay locked until a liveness sweep. Batched
        // (after 0 ms), the stop sends it first.
        preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      },
    },
  ];
  // A job whose lock or outcome was in flight when the database went away may stay locked by a
  // runner that no longer runs it, so a lost connection ends with new runners (their jobs unlocked).
  const liveness = await startWorkerLiveness(
    options.connectionString,
    logger,
    () => void restart('the database connection was lost'),
  );
  let stopped = false;
  let current: RunningRunner[] = [];
  let restarting: Promise<void> | undefined;

  const startRunner = async (spec: RunnerSpec): Promise<RunningRunner> => {
    const pool = createJobPool(options.connectionString, spec.poolSize, options.niceness ?? 0, logger);
    // Each runner's pools are recorded, so that a runner that died can have its jobs unlocked.
    const poolIds: string[] = [];
    const events: WorkerEvents = new EventEmitter();
    events.on('pool:create', (event) => {
      poolIds.push(event.workerPool.id);
      liveness.events.emit('pool:create', event);
    });
    try {
      const runner = await run({
        ...spec.options,
        pgPool: pool,
        concurrency: spec.concurrency,
        pollInterval: options.pollIntervalMs,
        noHandleSignals: true,
        logger: workerLogger(logger),
        events,
        taskList: spec.taskList,
      });
      const unasked = (error?: unknown) =>
        void (
          stopped ||
          !current.some((running) => running.runner === runner) ||
          restart('a job runner stopped unasked', error)
        );
      runner.promise.then(() => unasked(), unasked);
      return { runner, pool, poolIds };
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  };

  const startRunners = async (): Promise<void> => {
    const started: RunningRunner[] = [];
    try {
      for (const spec of runners) started.push(await startRunner(spec));
      current = started;
    } catch (error) {
      await stopRunners(started);
      throw error;
    }
  };

  const restart = (why: string, error?: unknown): Promise<void> =>
    (restarting ??= (async () => {
      logger?.error({ err: error }, `${why}; starting new job runners`);
      const previous = current;
      current = [];
      // Their pools stay open: a job outcome the old runner is still retrying (unawaited, see
      // job-pool.ts) would otherwise fail on an ended pool. Unused, their connections close by
      // themselves (job-pool.ts: idle timeout), and an outcome of an unlocked job changes nothing.
      await stopRunners(previous, { endPools: false });
      for (let attempt = 0; !stopped; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, restartDelay(attempt)));
        if (stopped) break;
        try {
          await unlockWorkers(
            options.connectionString,
            previous.flatMap((running) => running.poolIds),
          );
          await startRunners();
          logger?.info('job runners running again');
          break;
        } catch (failure) {
          logger?.warn({ err: failure }, 'job runners cannot start yet; trying again');
        }
      }
    })().finally(() => (restarting = undefined)));

  try {
    await queueStaleSyncsOnce(options.connectionString);
    await startRunners();
  } catch (error) {
    await liveness.stop();
    throw error;
  }
  return {
    restart: (why) => restart(why),
    async stop() {
      stopped = true;
      await restarting;
      const last = current;
      await stopRunners(last);
      // A job whose outcome a stopping runner did not record (a reply aborted as it was taken) would
      // stay locked until a later start's sweep, and nothing else would run it; none of ours runs
      // now, so whatever they still lock is freed. A database that is gone leaves it to that sweep.
      await unlockWorkers(
        options.connectionString,
        last.flatMap((running) => running.poolIds),
      ).catch(() => undefined);
      await liveness.stop();
    },
  };
}

/** One runner of startWorker: its own task list, concurrency and pool. */
interface RunnerSpec {
  concurrency: number;
  poolSize: number;
  taskList: TaskList;
  options?: Partial<RunnerOptions>;
}

interface RunningRunner {
  runner: Runner;
  pool: pg.Pool;
  poolIds: string[];
}

/** Stops runners together (their running jobs finish), then closes their pools unless told not to. */
async function stopRunners(running: RunningRunner[], { endPools = true } = {}): Promise<void> {
  await Promise.all(running.map(({ runner }) => runner.stop().catch(() => undefined)));
  if (endPools) await Promise.all(running.map(({ pool }) => pool.end().catch(() => undefined)));
}

/** Frees the jobs locked by runner pools of this process that are gone. */
async function unlockWorkers(connectionString: string, poolIds: string[]): Promise<void> {
  if (poolIds.length === 0) return;
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
