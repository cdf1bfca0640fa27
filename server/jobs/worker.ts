import { run, runOnce, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { importSettings, type AiProviderConfig, type ImportSettings } from '../config.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { accountSyncTask } from '../accounts/account-sync.task.ts';
import { queueEveryStaleSync } from '../accounts/account-sync.ts';
import { assistantReplyTask } from '../assistant/assistant-reply.task.ts';
import { IMPORT_EXPIRE_CRONTAB, importExpireTask } from '../imports/import-expire.task.ts';
import { importProcessTask } from '../imports/import-process.task.ts';
import { importRevertTask } from '../imports/import-revert.task.ts';
import { importStageTask } from '../imports/import-stage.task.ts';
import { workerLogger } from '../core/job-queue.ts';
import { transferSuggestTask } from '../transfers/transfer-suggest.task.ts';
import { withSessionOptions } from '../db/session-options.ts';
import { startWorkerLiveness } from './worker-liveness.ts';

/** What tasks need beyond the database: the assistant's model server, if one is configured. */
export interface TaskSettings {
  ai?: AiProviderConfig | undefined;
  logger?: Logger | undefined;
  /** Import limits and scheduling; the defaults when not given. */
  imports?: ImportSettings | undefined;
  /** The time import expiry goes by; tests move it. */
  clock?: Clock | undefined;
}

/** Every task the service runs in the background, by identifier. */
export function createTaskList(settings: TaskSettings = {}): TaskList {
  const imports = settings.imports ?? importSettings({});
  return {
    account_sync: accountSyncTask,
    import_stage: importStageTask(imports),
    import_process: importProcessTask(imports),
    import_revert: importRevertTask(imports),
    import_expire: importExpireTask(imports, settings.clock ?? systemClock),
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
 * Starts the job runner; it stops when asked, not on signals: the process owns its shutdown order
 * (HTTP, then jobs, then the database). Before it takes jobs, the jobs left locked by workers that
 * died are released (worker-liveness.ts), and its own workers are marked alive.
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
    taskList: createTaskList(options),
    crontab: IMPORT_EXPIRE_CRONTAB,
  }).catch(async (error: unknown) => {
    await liveness.stop();
    throw error;
  });
  return {
    async stop() {
      await runner.stop();
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
