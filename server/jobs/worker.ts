import { run, runOnce, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { DEFAULT_AI_WORKER_CONCURRENCY, type AiProviderConfig } from '../config.ts';
import { accountSyncTask } from '../accounts/account-sync.task.ts';
import { queueEveryStaleSync } from '../accounts/account-sync.ts';
import { assistantReplyTask } from '../assistant/assistant-reply.task.ts';
import { importProcessTask } from '../imports/import-process.task.ts';
import { importRevertTask } from '../imports/import-revert.task.ts';
import { workerLogger } from '../core/job-queue.ts';
import { transferSuggestTask } from '../transfers/transfer-suggest.task.ts';
import { withSessionOptions } from '../db/session-options.ts';
import { startWorkerLiveness } from './worker-liveness.ts';

/** What tasks need beyond the database: the assistant's model server, if one is configured. */
export interface TaskSettings {
  ai?: AiProviderConfig | undefined;
  logger?: Logger | undefined;
}

/** The tasks of the main runner: every task but the assistant's replies. */
const backgroundTasks = (): TaskList => ({
  account_sync: accountSyncTask,
  import_process: importProcessTask,
  import_revert: importRevertTask,
  transfer_suggest: transferSuggestTask,
});

/** The assistant's replies, which have a runner of their own (startWorker). */
const assistantTasks = (settings: TaskSettings): TaskList => ({
  assistant_reply: assistantReplyTask(settings.ai, settings.logger),
});

/** Every task the service runs in the background, by identifier. */
export function createTaskList(settings: TaskSettings = {}): TaskList {
  return { ...backgroundTasks(), ...assistantTasks(settings) };
}

export interface WorkerOptions extends TaskSettings {
  connectionString: string;
  concurrency: number;
  /** Assistant replies written at once, beside `concurrency` (AI_WORKER_CONCURRENCY). */
  aiConcurrency?: number | undefined;
  pollIntervalMs: number;
}

/** A running job runner. */
export interface BackgroundWorker {
  /** Lets running jobs finish (assistant replies are aborted, to run again), then closes the connections. */
  stop(): Promise<void>;
}

/** Accounts whose balances are stale with no sync queued get one (accounts/account-sync.ts). */
async function queueStaleSyncsOnce(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await queueEveryStaleSync(client);
  } finally {
    await client.end();
  }
}

/**
 * Starts the job runners (the main one and the assistant's); they stop when asked, not on
 * signals: the process owns its shutdown order (HTTP, then jobs, then the database). Before they
 * take jobs, the jobs left locked by workers that died are released (worker-liveness.ts), and
 * their own workers are marked alive.
 */
export async function startWorker(options: WorkerOptions): Promise<BackgroundWorker> {
  const liveness = await startWorkerLiveness(options.connectionString, options.logger);
  await queueStaleSyncsOnce(options.connectionString);
  const runner = await run({
    connectionString: withSessionOptions(options.connectionString),
    concurrency: options.concurrency,
    pollInterval: options.pollIntervalMs,
    // Pool: two connections per job (an import reports progress beside its transaction) plus the
    // runner's listen and poll connections, so no job can wait for a connection another holds.
    maxPoolSize: options.concurrency * 2 + 2,
    noHandleSignals: true,
    logger: workerLogger(options.logger),
    events: liveness.events,
    taskList: backgroundTasks(),
  }).catch(async (error: unknown) => {
    await liveness.stop();
    throw error;
  });
  // A reply waits on a model server for minutes; on a runner of its own (a runner takes only the
  // jobs of its task list) it never holds a slot a sync or an import needs. Its stop aborts
  // `helpers.abortSignal` at once, not after graphile-worker's 5 s, ending the replies' requests
  // and waits; they stay pending and run again.
  const aiConcurrency = options.aiConcurrency ?? DEFAULT_AI_WORKER_CONCURRENCY;
  const assistantRunner = await run({
    connectionString: withSessionOptions(options.connectionString),
    concurrency: aiConcurrency,
    pollInterval: options.pollIntervalMs,
    // One connection per reply, plus the runner's listen and poll connections.
    maxPoolSize: aiConcurrency + 2,
    noHandleSignals: true,
    gracefulShutdownAbortTimeout: 0,
    // Unbatched, a job's failure is sent without being awaited and can be lost when the stop
    // closes the pool: the reply's job would stay locked until a liveness sweep. Batched (after
    // 0 ms), the stop sends it first.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    logger: workerLogger(options.logger),
    events: liveness.events,
    taskList: assistantTasks(options),
  }).catch(async (error: unknown) => {
    await runner.stop();
    await liveness.stop();
    throw error;
  });
  return {
    async stop() {
      await Promise.all([runner.stop(), assistantRunner.stop()]);
      await liveness.stop();
    },
  };
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
