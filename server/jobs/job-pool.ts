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

/** What a job client is made with, beside pg's own settings. */
export interface JobClientConfig extends pg.ClientConfig {
  niceness?: number;
  /** Told of every error the connection raises (a lost backend), whether a query runs or not. */
  onLost?: (error: Error) => void;
}

/**
 * A client whose failed queries name a lost connection by its SQLSTATE, and whose backend is made
 * to yield the CPU (job-priority.ts) before the client is handed out: pg.Pool connects with a
 * callback, called here only once that is done, so no statement of the runner's overlaps it.
 *
 * It listens to its own `error` from the start. pg emits one whenever the backend goes, with or
 * without a query running, and an emitter with no listener throws it: the pool listens only while
 * a client is idle, and the pool's `connect` event (where a listener used to be added) comes after
 * the niceness is set, which can take a second when the kernel refuses autogroup writes. A
 * postmaster killed in that second took `npm start` down (a CI run of test/cli/database-restart).
 */
export class JobClient extends pg.Client {
  readonly #niceness: number;
  #lost: Error | undefined;

  constructor(config: JobClientConfig = {}) {
    super(config);
    this.#niceness = config.niceness ?? 0;
    this.on('error', (error: Error) => {
      this.#lost ??= error;
      config.onLost?.(error);
    });
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
  override connect(callback?: (error: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
    const ready = super.connect().then(async () => {
      await lowerBackendPriority(this, this.#niceness).catch(() => false);
      // Lost while its niceness was set: a failed connect, which the pool and the runner retry.
      if (this.#lost) throw withConnectionCode(this.#lost);
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
  // A pool being ended (the shutdown of npm start) lets go of its clients before their backends
  // have read the goodbye, and the database stopping next may end them first: nothing is lost.
  const lost = (error: Error) => {
    if (!pool.ending) logger?.warn({ err: error }, 'job connection lost');
  };
  // pg.Pool hands its options to each new client: JobClient reads `niceness` and `onLost` there.
  const options: pg.PoolConfig & JobClientConfig = {
    connectionString: withSessionOptions(connectionString),
    max,
    Client: JobClient,
    niceness,
    onLost: lost,
    // A replaced runner's pool is left to empty by itself; it must not keep the process alive.
    idleTimeoutMillis: 10_000,
    allowExitOnIdle: true,
  };
  const pool = new pg.Pool(options);
  // The pool re-emits an idle client's error; the client has told `lost` already. graphile-worker
  // adds handlers of its own, logging every loss at error level (a shutdown too), to a pool with
  // no `error` or no `connect` listener: the clients listen for themselves, so both are no-ops.
  pool.on('error', () => undefined);
  pool.on('connect', () => undefined);
  return pool;
}
