import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { countOnePoint, giveOnePointBack, refuseBeyond, type WindowCounter } from '../core/rate-limit.ts';
import { sqlOn } from '../core/sql.ts';

export type LoginThrottleConfig = Pick<
  Config,
  'loginFailuresPerAddress' | 'loginFailuresPerEmail' | 'loginFailureWindowSeconds'
>;

/** An attempt that counts against the limits until it is given back. */
export interface SignInAttempt {
  /** The password (and code) were right: the attempt no longer counts. */
  succeeded(): Promise<void>;
}

interface Counter extends WindowCounter {
  limit: number;
}

/**
 * Counts a sign-in attempt against its client address and its email address before the password
 * is checked, in one statement on the shared `rate_limits` table, and refuses it with 429 beyond a
 * limit. Counting first (and giving the point back on success) keeps the limit exact however many
 * guesses arrive at once; counting only after a failure would let a burst of parallel guesses
 * through before the first one was counted.
 */
export async function beginSignInAttempt(
  em: EntityManager,
  config: LoginThrottleConfig,
  who: { address: string; email: string },
  now: number,
): Promise<SignInAttempt> {
  const windowMs = config.loginFailureWindowSeconds * 1000;
  const counters = [
    { key: `sign_in:address:${who.address}`, limit: config.loginFailuresPerAddress },
    { key: `sign_in:email:${who.email.trim().toLowerCase()}`, limit: config.loginFailuresPerEmail },
  ].filter((counter) => counter.limit > 0);
  if (!counters.length) return { succeeded: async () => {} };

  const rows = await countOnePoint(
    sqlOn(em),
    counters.map((counter) => counter.key),
    windowMs,
    now,
  );
  const counted: Counter[] = rows.map((row) => ({ ...row, limit: counters.find((c) => c.key === row.key)!.limit }));
  for (const counter of counted) refuseBeyond(counter, counter.limit, now);
  return {
    succeeded: () => giveOnePointBack(sqlOn(em), counted),
  };
}
