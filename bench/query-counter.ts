import pg from 'pg';

/**
 * Counts the statements this process sends to PostgreSQL (every pg Client#query: the ORM's, knex's,
 * the rate limiter's, BEGIN/COMMIT included) and answers the parent's `{ type: 'queries' }` IPC
 * message with the count so far. Used by the preflight to report round trips per request.
 */
let count = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  count++;
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

process.on('message', (message: { type?: string }) => {
  if (message?.type === 'queries') process.send?.({ type: 'queries', count });
});
