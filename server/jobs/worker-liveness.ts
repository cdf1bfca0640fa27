import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { WorkerEvents } from 'graphile-worker';

/**
 * graphile-worker 0.17 leaves a job locked by a worker that died (`kill -9`, a lost machine) for
 * about four hours, and documents `force_unlock_workers(ids)` for workers known to be gone. We
 * know which are gone this way: every worker pool of ours (0.17 locks jobs in the pool's name, not
 * the single worker's) holds a session advisory lock named after its id on one connection of its
 * process, which PostgreSQL drops when that process dies. A sweep frees the jobs of every locker
 * whose advisory lock it can take.
 */

/** First key of the advisory locks (the second is the locker id's hash): 'gw' 'li' in ASCII. */
const LOCK_NAMESPACE = 0x67776c69;

/**
 * A job locked this recently is left alone: its pool may still be on its way to taking its
 * advisory lock (one round trip after it was created). A false "dead" would only run an
 * idempotent job twice, and this margin makes even that implausible.
 */
const LOCK_GRACE_SECONDS = 5;

/** How often a running process also sweeps for peers that died while it runs. */
const SWEEP_INTERVAL_MS = 60_000;

const DEAD_WORKERS = `
  with locking as (
    select locked_by from graphile_worker._private_jobs
      where locked_by is not null and locked_at < now() - make_interval(secs => $2)
    union
    select locked_by from graphile_worker._private_job_queues
      where locked_by is not null and locked_at < now() - make_interval(secs => $2)
  )
  select coalesce(array_agg(locked_by order by locked_by), '{}') as ids from locking
    where pg_try_advisory_xact_lock($1, hashtext(locked_by))`;

/**
 * Unlocks the jobs of workers that no longer run, in one transaction (the advisory locks taken to
 * test them end with it). Runs on its own connection: the liveness connection holds our own
 * pools' locks, which would look free to itself. Returns the ids it released.
 */
export async function releaseDeadWorkers(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined); // a lost connection also fails the query, which is awaited
  await client.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ ids: string[] }>(DEAD_WORKERS, [LOCK_NAMESPACE, LOCK_GRACE_SECONDS]);
    const ids = rows[0]!.ids;
    if (ids.length > 0) await client.query('select graphile_worker.force_unlock_workers($1::text[])', [ids]);
    await client.query('commit');
    return ids;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** The process's liveness: pass `events` to graphile-worker, `stop()` after the runner stopped. */
export interface WorkerLiveness {
  events: WorkerEvents;
  stop(): Promise<void>;
}

/**
 * Opens the liveness connection and claims each worker pool's advisory lock as graphile-worker
 * creates it; if the connection breaks, a new one claims them all again. Sweeps once at once
 * (the jobs a crashed predecessor left) and then every `SWEEP_INTERVAL_MS`. `onReconnected` hears
 * when a lost connection is back: the database may have lost what this process was telling it.
 */
export async function startWorkerLiveness(
  connectionString: string,
  logger: Logger | undefined,
  onReconnected: () => void = () => undefined,
): Promise<WorkerLiveness> {
  const lockerIds = new Set<string>();
  let client: pg.Client | undefined;
  let stopped = false;

  const claim = (target: pg.Client, ids: string[]) =>
    target.query('select pg_advisory_lock($1, hashtext(id)) from unnest($2::text[]) as id', [LOCK_NAMESPACE, ids]);

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString, application_name: 'graphile-worker liveness' });
    // An idle client may only see 'end' when its backend goes; either way, claim again once.
    let lost = false;
    const onLost = (error?: Error) => {
      if (stopped || lost) return;
      lost = true;
      logger?.warn({ err: error }, 'worker liveness connection lost; reconnecting');
      client = undefined;
      reconnectSoon();
    };
    next.on('error', onLost);
    next.on('end', () => onLost());
    try {
      await next.connect();
      await claim(next, [...lockerIds]);
    } catch (error) {
      lost = true; // the caller retries; this client must not start a second attempt
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) await next.end();
    else client = next;
  };
  // Until it is back, other processes may take this one's jobs: account syncs are idempotent.
  const reconnectSoon = (): void => {
    setTimeout(() => {
      if (stopped) return;
      connect().then(onReconnected, (error: unknown) => {
        logger?.error({ err: error }, 'worker liveness reconnect failed; trying again');
        reconnectSoon();
      });
    }, 1000).unref();
  };

  const sweep = async (): Promise<void> => {
    const released = await releaseDeadWorkers(connectionString);
    if (released.length > 0) logger?.warn({ lockerIds: released }, 'released the jobs of workers that no longer run');
  };

  await connect();
  const events: WorkerEvents = new EventEmitter();
  events.on('pool:create', ({ workerPool }) => {
    lockerIds.add(workerPool.id);
    if (client)
      claim(client, [workerPool.id]).catch((error: unknown) =>
        logger?.error({ err: error }, 'worker liveness lock failed'),
      );
  });
  await sweep();
  const timer = setInterval(
    () => void sweep().catch((error: unknown) => logger?.error({ err: error }, 'dead worker sweep failed')),
    SWEEP_INTERVAL_MS,
  );
  timer.unref();

  return {
    events,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await client?.end();
    },
  };
}
