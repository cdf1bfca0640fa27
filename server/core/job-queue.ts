import { Logger as WorkerLogger, runMigrations, type JobHelpers, type LogLevel, type Task } from 'graphile-worker';
import type { Logger } from 'pino';
import { sqlOn, type SqlTarget, type Statement } from './sql.ts';

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

/**
 * The payload of every background task, by task identifier. Each feature declares its own tasks
 * beside their code (declaration merging, as graphile-worker's `GraphileWorker.Tasks` does), so a
 * queued job and the task that runs it cannot disagree on the payload's shape.
 */
export interface JobPayloads {}

export type JobName = keyof JobPayloads & string;

export interface QueueOptions {
  /** At most one waiting job per key; a newer job replaces the waiting one (graphile-worker's `replace` mode). */
  jobKey?: string;
  /** Jobs of one named queue run one after the other. */
  queueName?: string;
  /** Runs before the job fails for good (graphile-worker's default is 25). */
  maxAttempts?: number;
}

/**
 * The SQL expression that queues a job, with its values, for a statement that also does other work
 * (a write that queues its follow-up in the same statement). Only the options given are named, so
 * each call site keeps one statement text.
 */
export function jobCall<N extends JobName>(name: N, payload: JobPayloads[N], options: QueueOptions = {}): Statement {
  const named: string[] = [];
  const params: unknown[] = [name, JSON.stringify(payload)];
  if (options.queueName !== undefined) {
    named.push('queue_name := ?');
    params.push(options.queueName);
  }
  if (options.jobKey !== undefined) {
    named.push('job_key := ?');
    params.push(options.jobKey);
  }
  if (options.maxAttempts !== undefined) {
    named.push('max_attempts := ?::int');
    params.push(options.maxAttempts);
  }
  const text = `graphile_worker.add_job(?::text, ?::json${named.map((arg) => `, ${arg}`).join('')})`;
  return { text, params };
}

/**
 * Queues a job on `target`'s connection, so inside the caller's transaction: the job exists exactly
 * when the write that needs it committed (graphile-worker's own `addJob` would use a connection of
 * its own).
 */
export async function queueJob<N extends JobName>(
  target: SqlTarget,
  name: N,
  payload: JobPayloads[N],
  options?: QueueOptions,
): Promise<void> {
  const call = jobCall(name, payload, options);
  await sqlOn(target)(`select ${call.text}`, call.params);
}

/**
 * A task whose payload is checked on its first line: each field in `required` must be a string
 * (the ids the payloads carry). A job with another payload fails and says what it got.
 */
export function defineTask<N extends JobName>(
  name: N,
  required: readonly (keyof JobPayloads[N] & string)[],
  run: (payload: JobPayloads[N], helpers: JobHelpers) => Promise<void>,
): Task {
  return async (payload, helpers) => {
    const fields = (payload ?? {}) as Record<string, unknown>;
    if (required.some((key) => typeof fields[key] !== 'string')) {
      throw new Error(`${name} needs {${required.join(', ')}}, got ${JSON.stringify(payload)}`);
    }
    await run(payload as JobPayloads[N], helpers);
  };
}
