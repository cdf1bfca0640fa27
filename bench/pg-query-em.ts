import type pg from 'pg';
import type { EntityManager } from '../server/db/orm.ts';

/**
 * The transaction queries (server/transactions/transaction.queries.ts) export only functions that
 * take an EntityManager and run their SQL through `em.execute(text, params)` (server/db/sql.ts);
 * the SQL builders themselves (SELECT, JOINS, ORDER, whereClause) are private. So that the limit
 * server runs the very SQL text the handlers build, without copying it, it calls those exported
 * functions with this stand-in, which forwards `execute` to a bare `pg` pool.
 *
 * One difference from the service is deliberate: MikroORM inlines the parameters into the text
 * (platform.formatQuery) and sends it with the simple query protocol; here the knex-style `?`
 * placeholders become `$1..$n` and pg binds them (extended protocol, an unnamed statement planned
 * with the actual values, so the plans are the same).
 */
export function pgQueryEm(pool: pg.Pool): EntityManager {
  const execute = async (text: string, params: unknown[] = []) => (await pool.query(toPgPlaceholders(text, params.length), params)).rows;
  return { execute } as unknown as EntityManager;
}

const cache = new Map<string, { text: string; count: number }>();

/** knex-style `?` placeholders -> `$1..$n`, skipping quoted literals and identifiers; checks the count. */
export function toPgPlaceholders(text: string, expected: number): string {
  const cached = cache.get(text);
  if (cached) {
    if (cached.count !== expected) throw new Error(`SQL has ${cached.count} placeholders but ${expected} parameters were given`);
    return cached.text;
  }
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (char === quote) quote = null;
      out += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === '?') {
      if (text[i + 1] === '?' || text[i - 1] === '\\') throw new Error('knex identifier bindings (??) or escaped ? are not supported');
      out += `$${++n}`;
    } else out += char;
  }
  if (n !== expected) throw new Error(`SQL has ${n} placeholders but ${expected} parameters were given`);
  if (cache.size < 1000) cache.set(text, { text: out, count: n });
  return out;
}
