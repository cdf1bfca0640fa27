/**
 * Whether an error says the database is out of reach for now (restarting, recovering from a
 * crash, refusing connections, or no connection free) rather than that a statement is wrong. Such
 * a failure passes: requests answer 503 with Retry-After, jobs are retried, nothing is lost.
 * See docs/faults.md.
 */

/** SQLSTATEs of a lost or refused connection: class 08, the 57P shutdown codes, too many connections. */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-4]|53300)$/;

/** Socket errors of a server that went away (ENOENT: its Unix socket is gone while it restarts). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH']);

/** pg and knex say these without a code. */
const MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Timeout acquiring a connection',
];

/** The SQLSTATE given to a codeless connection failure, so code-based retry rules see it. */
export const CONNECTION_FAILURE = '08006';

export function isConnectionLoss(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (SQLSTATE.test(code) || SOCKET_CODES.has(code))) return true;
    if (
      typeof message === 'string' &&
      MESSAGES.some((text) => message.startsWith(text) || message.includes(`: ${text}`))
    )
      return true;
    current = cause;
  }
  return false;
}
