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

/** `url` with SESSION_OPTIONS added to its `options` parameter (which `pg` sends at connect). */
export function withSessionOptions(url: string): string {
  const parsed = new URL(url);
  const given = parsed.searchParams.get('options');
  parsed.searchParams.set('options', given ? `${given} ${SESSION_OPTIONS}` : SESSION_OPTIONS);
  return parsed.href;
}
