/**
 * Whether an error says the database is out of reach for now (restarting, recovering from a
 * crash, refusing connections, or no connection free) rather than that a statement is wrong. Such
 * a failure passes: requests answer 503 with Retry-After, jobs are retried, nothing is lost.
 * See docs/faults.md.
 */

/**
 * The codes of a lost or refused connection: every SQLSTATE of class 08, the 57P shutdown codes and
 * too many connections; and the socket errors of a server that went away (ENOENT: its Unix socket
 * is gone while it restarts). Also the codes the worker retries (server/jobs/job-pool.ts).
 */
export const CONNECTION_LOSS_CODES: readonly string[] = [
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '08P01',
  '57P01',
  '57P02',
  '57P03',
  '57P04',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOENT',
  'ETIMEDOUT',
  'EHOSTUNREACH',
];
const CODES = new Set(CONNECTION_LOSS_CODES);

/** pg and knex say these without a code. */
const MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Timeout acquiring a connection',
  'timeout exceeded when trying to connect',
];

/** The SQLSTATE given to a codeless connection failure, so code-based retry rules see it. */
export const CONNECTION_FAILURE = '08006';

export function isConnectionLoss(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && CODES.has(code)) return true;
    if (
      typeof message === 'string' &&
      MESSAGES.some((text) => message.startsWith(text) || message.includes(`: ${text}`))
    )
      return true;
    current = cause;
  }
  return false;
}
