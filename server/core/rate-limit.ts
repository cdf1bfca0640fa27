import { RateLimited } from './errors.ts';
import type { Sql } from './sql.ts';

/**
 * Fixed-window counters in the unlogged `rate_limits` table, shared by every process: the request
 * limits of the access gate, sign-in attempts and the assistant's messages all count here.
 */

/** One counter after a statement added to it; `expire` is epoch milliseconds (bigint as text). */
export interface WindowCounter {
  key: string;
  points: number;
  expire: string;
}

/**
 * Adds points to fixed-window counters: a new window starts once the previous one has expired.
 * Takes `valuesSql` (rows of key, points, expire) and then the time of counting (epoch
 * milliseconds) twice; returns the counters (key, points, expire as text). For statements that
 * count as part of other work.
 */
export function counterUpsert(valuesSql: string): string {
  return `insert into rate_limits (key, points, expire) ${valuesSql}
    on conflict (key) do update set
      points = case when rate_limits.expire <= ? then excluded.points else rate_limits.points + excluded.points end,
      expire = case when rate_limits.expire <= ? then excluded.expire else rate_limits.expire end
    returning key, points, expire::text as expire`;
}

/**
 * Counts one point on each counter, each in a window of its own length, in one statement. Run
 * inside the caller's transaction, a refused or failed write takes its count back with it, and
 * concurrent requests queue on the counter rows. Every statement that changes several counters
 * takes them in byte order of their keys (`collate "C"`, whatever the database's collation), so two
 * statements sharing counters never wait for each other crosswise.
 */
export function countOnePoint(
  run: Sql,
  counters: readonly { key: string; windowMs: number }[],
  now: number,
): Promise<WindowCounter[]> {
  return run<WindowCounter>(
    counterUpsert(
      `select key, 1, ?::bigint + window_ms from unnest(?::text[], ?::bigint[]) as c(key, window_ms)
       order by key collate "C"`,
    ),
    [now, counters.map((counter) => counter.key), counters.map((counter) => counter.windowMs), now, now],
  );
}

/** Whole seconds until a counter's window ends (at least 1: a client must wait before trying again). */
export function secondsUntilReset(counter: { expire: string | number }, now: number): number {
  return Math.max(1, Math.ceil((Number(counter.expire) - now) / 1000));
}

/** Refuses with 429 when a counter has gone past its limit; `what` names a limit other than requests. */
export function refuseBeyond(
  counter: { points: number; expire: string | number },
  limit: number,
  now: number,
  what?: string,
): void {
  if (counter.points > limit) {
    throw new RateLimited(limit, counter.points, secondsUntilReset(counter, now), what);
  }
}

/**
 * Takes back one point of each counter, only within the window it was counted in (a counter that
 * started over owes it nothing): an attempt that turned out not to count, such as a sign-in with
 * the right password or one refused by another limit.
 */
export async function giveOnePointBack(run: Sql, counters: WindowCounter[]): Promise<void> {
  // An update joined to the keys locks rows in whatever order its plan meets them (heap order
  // for a small table), so the rows are locked in key order first, as countOnePoint takes them.
  await run(
    `update rate_limits r set points = r.points - 1
     from (select l.key from rate_limits l
           join unnest(?::text[], ?::bigint[]) as w(key, expire) on l.key = w.key and l.expire = w.expire
           where l.points > 0
           order by l.key collate "C"
           for update of l) given
     where r.key = given.key`,
    [counters.map((counter) => counter.key), counters.map((counter) => counter.expire)],
  );
}

/** Deletes counters whose window ended long ago, so the table holds only live clients. */
export async function pruneRateLimits(run: Sql): Promise<number> {
  const rows = await run<{ key: string }>('delete from rate_limits where expire < ? returning key', [Date.now()]);
  return rows.length;
}
