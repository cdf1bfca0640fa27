import pg from 'pg';
import type { Logger } from 'pino';
import { requestSessionOptions, withSessionOptions } from './session-options.ts';

/** Dates, timestamps and intervals (and their arrays) stay text, as the ORM's driver reads them. */
const types = new pg.TypeOverrides();
for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, (text: string) => text);
// text[]'s parser: an array of dates, timestamps or intervals is written the same way.
const TEXT_ARRAY = 1009 as Parameters<typeof pg.types.getTypeParser>[0];
const textArray = pg.types.getTypeParser(TEXT_ARRAY, 'text');
for (const oid of [1182, 1115, 1185, 1187]) types.setTypeParser(oid, textArray);

/**
 * The API's pool for statements outside a unit of work (a handler's `db`: every read, the
 * one-statement writes, the access gate): a plain `pg` pool of `size` connections beside the
 * ORM's, which keeps the transactions. Taking a connection from the ORM's pool (knex's tarn) made
 * two timers and a dozen promises per statement, and cost a read about a sixth of its CPU
 * (bench/README.md#api). Same session settings and result parsing as the ORM's connections; a
 * statement waits at most `acquireTimeoutMs` for a free connection and then fails as a connection
 * loss (an answer of 503, http/error-answer.ts), and at most `lockTimeoutMs` for a lock
 * (requestSessionOptions). A connection lost while idle (a database restart) is logged and replaced
 * on next use.
 */
export function openStatementPool(
  clientUrl: string,
  size: number,
  acquireTimeoutMs: number,
  log: Logger,
  lockTimeoutMs = 0,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withSessionOptions(clientUrl, requestSessionOptions(lockTimeoutMs)),
    max: size,
    connectionTimeoutMillis: acquireTimeoutMs,
    types,
  });
  pool.on('error', (error) => log.warn({ err: error }, 'idle database connection lost'));
  return pool;
}
