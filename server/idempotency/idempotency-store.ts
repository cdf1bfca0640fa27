import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { Sql } from '../core/sql.ts';

/** How long the first answer to a key is kept (docs/api-decisions.md#idempotent-writes). */
export const KEEP_MS = 24 * 3_600_000;

/**
 * A claim with no answer this long after it was made is taken to belong to a process that died
 * mid-request: the same request may claim the key again. No write operation runs this long (an
 * import's CSV is read by a job, not by its request).
 */
export const ABANDONED_AFTER_MS = 10 * 60_000;

/** What claiming a key found. */
export type Claim =
  /** The key is this request's: run it, then `finish` or `release` with `claim`. */
  | { outcome: 'claimed'; claim: string }
  /** The same request answered before: its answer (the body as the JSON text sent, or null). */
  | { outcome: 'answered'; status: number; body: string | null }
  /** The same request is running now. */
  | { outcome: 'running' }
  /** The key was used for another request. */
  | { outcome: 'reused' };

/** JSON with every object's members in one order, so `{a, b}` and `{b, a}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests the same request: method, path and body (its members in any order). */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body)}`)
    .digest('base64url');
}

/** A claim raced with a release or an expiry this many times in a row: something is wrong. */
const CLAIM_ATTEMPTS = 3;

/**
 * The keys of one user, in the `idempotency_keys` table. A claim is one insert-on-conflict, so
 * of concurrent requests with one key exactly one gets it; the answer is written once the
 * operation has answered.
 */
export function idempotencyKeys(run: Sql, clock: Clock, userId: string, key: string) {
  return {
    async claim(fingerprint: string): Promise<Claim> {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const now = clock();
        const claim = randomUUID();
        // Taken over: an expired row the expiry job has not removed yet, or an abandoned claim of
        // the same request.
        const claimed = await run(
          `insert into idempotency_keys (user_id, key, claim, fingerprint, claimed_at, expires_at)
           values (?, ?, ?, ?, ?, ?)
           on conflict (user_id, key) do update
             set claim = excluded.claim, fingerprint = excluded.fingerprint, claimed_at = excluded.claimed_at,
                 expires_at = excluded.expires_at, status = null, body = null
             where idempotency_keys.expires_at <= excluded.claimed_at
                or (idempotency_keys.status is null and idempotency_keys.fingerprint = excluded.fingerprint
                    and idempotency_keys.claimed_at <= ?)
           returning claim`,
          [userId, key, claim, fingerprint, new Date(now), new Date(now + KEEP_MS), new Date(now - ABANDONED_AFTER_MS)],
        );
        if (claimed.length) return { outcome: 'claimed', claim };
        // The conflicting row is committed (the insert waited for it), so this read sees it,
        // unless it was released or removed meanwhile: then claim again.
        const [held] = await run<{ fingerprint: string; status: number | null; body: string | null }>(
          `select fingerprint, status, body::text as body from idempotency_keys where user_id = ? and key = ?`,
          [userId, key],
        );
        if (!held) continue;
        if (held.fingerprint !== fingerprint) return { outcome: 'reused' };
        if (held.status === null) return { outcome: 'running' };
        return { outcome: 'answered', status: held.status, body: held.body };
      }
      throw new Error('an Idempotency-Key could not be claimed: its row kept going away');
    },

    /** Keeps the answer of the request that holds `claim`: its status and the JSON text of its body, if any. */
    async finish(claim: string, status: number, body: string | null): Promise<void> {
      await run(`update idempotency_keys set status = ?, body = ?::json where user_id = ? and key = ? and claim = ?`, [
        status,
        body,
        userId,
        key,
        claim,
      ]);
    },

    /** Frees the key of a request that changed nothing (a 5xx, a 429): the same request may run again. */
    async release(claim: string): Promise<void> {
      await run(`delete from idempotency_keys where user_id = ? and key = ? and claim = ?`, [userId, key, claim]);
    },
  };
}

/** Rows removed per statement by the expiry. */
const EXPIRED_PER_STATEMENT = 10_000;

/** Removes the keys whose answer is past keeping, in batches; how many it removed. */
export async function removeExpiredKeys(run: Sql, now: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await run<{ count: number }>(
      `with gone as (
         delete from idempotency_keys where ctid = any(array(
           select ctid from idempotency_keys where expires_at <= ? limit ${EXPIRED_PER_STATEMENT}))
         returning 1)
       select count(*)::int as count from gone`,
      [new Date(now)],
    );
    removed += rows[0]!.count;
    if (rows[0]!.count < EXPIRED_PER_STATEMENT) return removed;
  }
}
