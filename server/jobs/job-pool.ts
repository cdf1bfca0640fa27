import pg from 'pg';
import type { Logger } from 'pino';
import { RETRYABLE_ERROR_CODES } from 'graphile-worker/dist/lib.js';
import { CONNECTION_FAILURE, CONNECTION_LOSS_CODES, isConnectionLoss } from '../db/connection-loss.ts';
import { withSessionOptions } from '../db/session-options.ts';
import { lowerBackendPriority } from './job-priority.ts';

/**
 * graphile-worker 0.17 retries its own statements (take a job, complete it, fail it) only for the
 * error codes in RETRYABLE_ERROR_CODES, and does not await completing or failing a job: when the
 * database restarts, those statements fail with EPIPE, ECONNRESET or a codeless "Connection
 * terminated unexpectedly", the rejection goes unhandled and the process dies (docs/faults.md).
 * So the codes of a lost connection join the table, and the pool's clients give a codeless
 * connection failure the SQLSTATE of one: the runner then waits for the database instead.
 */
const WAIT_FOR_DATABASE = { minDelay: 200, maxDelay: 5_000 };
for (const code of CONNECTION_LOSS_CODES) RETRYABLE_ERROR_CODES[code] ??= WAIT_FOR_DATABASE;

function withConnectionCode(error: unknown): unknown {
  if (error instanceof Error && !('code' in error && error.code) && isConnectionLoss(error))
    Object.assign(error, { code: CONNECTION_FAILURE });
  return error;
}

/**
 * A client whose failed queries name a lost connection by its SQLSTATE, and whose backend is made
 * to yield the CPU (job-priority.ts) before the client is handed out: pg.Pool connects with a
 * callback, called here only once that is done, so no statement of the runner's overlaps it.
 */
class JobClient extends pg.Client {
  readonly #niceness: number;

  constructor(config?: pg.ClientConfig & { niceness?: number }) {
    super(config);
    this.#niceness = config?.niceness ?? 0;
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
  override connect(callback?: (error: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
    const ready = super.connect().then(async () => {
      await lowerBackendPriority(this, this.#niceness).catch(() => false);
      return this;
    });
    if (!callback) return ready;
    ready.then(
      (client) => callback(null, client),
      (error: Error) => callback(error),
    );
  }

  // pg's query has many overloads; only the promise form (graphile-worker's and ours) is touched.
  override query(...args: unknown[]): any {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    return result instanceof Promise
      ? result.catch((error: unknown) => Promise.reject(withConnectionCode(error)))
      : result;
  }
}

/**
 * The pool a job runner works on: its clients tag lost connections, idle ones that die are only
 * logged, and their backends run at `niceness` where they can (job-priority.ts).
 */
export function createJobPool(
  connectionString: string,
  max: number,
  niceness: number,
  logger: Logger | undefined,
): pg.Pool {
  // pg.Pool hands its options to each new client: JobClient reads `niceness` there.
  const options: pg.PoolConfig & { niceness: number } = {
    connectionString: withSessionOptions(connectionString),
    max,
    Client: JobClient,
    niceness,
    // A replaced runner's pool is left to empty by itself; it must not keep the process alive.
    idleTimeoutMillis: 10_000,
    allowExitOnIdle: true,
  };
  const pool = new pg.Pool(options);
  // A pool being ended (the shutdown of npm start) lets go of its clients before their backends
  // have read the goodbye, and the database stopping next may end them first: nothing is lost.
  const lost = (error: Error) => {
    if (!pool.ending) logger?.warn({ err: error }, 'job connection lost');
  };
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  return pool;
}
