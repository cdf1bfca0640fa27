import { run, runOnce, type Runner, type TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import { accountSyncTask } from './account-sync.task.ts';
import { workerLogger } from './job-queue.ts';

/** Every task the service runs in the background, by identifier. */
export const taskList: TaskList = {
  account_sync: accountSyncTask,
};

export interface WorkerOptions {
  connectionString: string;
  concurrency: number;
  pollIntervalMs: number;
  logger?: Logger;
}

/**
 * Starts the job runner; it stops when asked (`runner.stop()`: running jobs finish first), not on
 * signals: the process owns its shutdown order (HTTP, then jobs, then the database).
 */
export async function startWorker(options: WorkerOptions): Promise<Runner> {
  return run({
    connectionString: options.connectionString,
    concurrency: options.concurrency,
    pollInterval: options.pollIntervalMs,
    // Pool: the jobs' own connections plus the runner's listen and poll connections.
    maxPoolSize: options.concurrency + 2,
    noHandleSignals: true,
    logger: workerLogger(options.logger),
    taskList,
  });
}

/** Runs every job that is due, then returns: for tests, which wait for the queue to drain. */
export async function drainJobs(connectionString: string, logger?: Logger): Promise<void> {
  await runOnce({ connectionString, taskList, noHandleSignals: true, logger: workerLogger(logger) });
}
