/**
 * Settings of every session the service opens (the ORM's pool and the worker's).
 *
 * JIT off: PostgreSQL compiles a plan to machine code when its estimated cost passes
 * `jit_above_cost`, and the estimates of the JSON functions in the one-statement create (the rule
 * CTEs) reach that although they read a handful of rows. On PostgreSQL 15 with JIT the create took
 * ~900 ms instead of ~2 ms, all of it compiling. The service runs short statements only, where JIT
 * never pays (docs/stack-traps.md#postgresql-jit).
 */
export const SESSION_OPTIONS = '-c jit=off';

/**
 * The settings of the API's sessions, which serve requests: SESSION_OPTIONS, and a statement waits
 * at most `lockTimeoutMs` for a lock (0: as long as it takes). A write queued behind an import, which
 * holds its account for as long as it writes, would otherwise hold its connection and its client
 * for that long; it fails instead (55P03), is answered 503 with Retry-After, and wrote nothing.
 */
export function requestSessionOptions(lockTimeoutMs: number): string {
  return lockTimeoutMs > 0 ? `${SESSION_OPTIONS} -c lock_timeout=${lockTimeoutMs}` : SESSION_OPTIONS;
}

/** `url` with `options` (SESSION_OPTIONS unless told) added to its `options` parameter (which `pg` sends at connect). */
export function withSessionOptions(url: string, options = SESSION_OPTIONS): string {
  const parsed = new URL(url);
  const given = parsed.searchParams.get('options');
  parsed.searchParams.set('options', given ? `${given} ${options}` : options);
  return parsed.href;
}
