import pg from 'pg';

/**
 * Counts the statements this process sends to PostgreSQL (every pg Client#query: the ORM's, knex's,
 * the rate limiter's, BEGIN/COMMIT included); serve-child.ts reports the count to the parent, for
 * the statements per request of the preflight and of each run.
 */
let count = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  count++;
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

export function statementsSent(): number {
  return count;
}
