import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { countOnePoint, giveOnePointBack, refuseBeyond, type WindowCounter } from '../core/rate-limit.ts';
import { sqlOn } from '../core/sql.ts';

export type LoginThrottleConfig = Pick<
  Config,
  | 'loginAttemptsPerAddress'
  | 'loginAttemptWindowSeconds'
  | 'loginFailuresPerAddress'
  | 'loginFailuresPerEmailAndAddress'
  | 'loginFailuresPerEmail'
  | 'loginFailureWindowSeconds'
>;

/** An attempt that counts against the limits until it is given back. */
export interface SignInAttempt {
  /** The password (and code) were right: no failure, though still an attempt of its address. */
  succeeded(): Promise<void>;
  /** Nothing was checked (no room to hash the password): the attempt does not count at all. */
  withdrawn(): Promise<void>;
}

interface Counter extends WindowCounter {
  limit: number;
  /** Counts failures (given back on success), not attempts. */
  failure: boolean;
}

const NOTHING_COUNTED: SignInAttempt = { succeeded: async () => {}, withdrawn: async () => {} };

/**
 * Counts a sign-in attempt before the password is checked, in one statement on the shared
 * `rate_limits` table, and refuses it with 429 beyond a limit:
 *
 * - attempts per client address, right or wrong: each one costs a password hash, so even correct
 *   sign-ins in bulk are a flood;
 * - failures per client address; per email from that address (a guesser locks out only
 *   themselves); per email from everywhere, high enough that one stranger cannot quickly lock the
 *   owner out, low enough to bound guessing spread over many addresses.
 *
 * Counting first (and giving the point back on success) keeps the limits exact however many
 * guesses arrive at once; counting only after a failure would let a burst of parallel guesses
 * through before the first one was counted. A refused attempt gives every point back: a flood
 * that goes on while refused must not push the other counters along (the per-email one above
 * all), and a counter stays at its limit rather than climbing past it.
 */
export async function beginSignInAttempt(
  em: EntityManager,
  config: LoginThrottleConfig,
  who: { address: string; email: string },
  now: number,
): Promise<SignInAttempt> {
  const email = who.email.trim().toLowerCase();
  const failureWindowMs = config.loginFailureWindowSeconds * 1000;
  const failures = (key: string, limit: number) => ({ key, limit, windowMs: failureWindowMs, failure: true });
  const limits = [
    {
      key: `sign_in:attempts:${who.address}`,
      limit: config.loginAttemptsPerAddress,
      windowMs: config.loginAttemptWindowSeconds * 1000,
      failure: false,
    },
    failures(`sign_in:address:${who.address}`, config.loginFailuresPerAddress),
    // The address first: it holds no `|`, so the pair reads one way.
    failures(`sign_in:address_email:${who.address}|${email}`, config.loginFailuresPerEmailAndAddress),
    failures(`sign_in:email:${email}`, config.loginFailuresPerEmail),
  ].filter((counter) => counter.limit > 0);
  if (!limits.length) return NOTHING_COUNTED;

  const rows = await countOnePoint(sqlOn(em), limits, now);
  const counted: Counter[] = rows.map((row) => {
    const { limit, failure } = limits.find((counter) => counter.key === row.key)!;
    return { ...row, limit, failure };
  });
  const spent = counted.filter((counter) => counter.points > counter.limit);
  if (spent.length) {
    await giveOnePointBack(sqlOn(em), counted);
    // The counter that keeps the client waiting longest says when to come back.
    const last = spent.reduce((a, b) => (Number(b.expire) > Number(a.expire) ? b : a));
    refuseBeyond(last, last.limit, now);
  }
  return {
    succeeded: () =>
      giveOnePointBack(
        sqlOn(em),
        counted.filter((counter) => counter.failure),
      ),
    withdrawn: () => giveOnePointBack(sqlOn(em), counted),
  };
}
