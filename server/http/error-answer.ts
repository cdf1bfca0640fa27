import type { Context } from 'koa';
import type { Logger } from 'pino';
import { DomainError, ServerBusy } from '../core/errors.ts';
import { isConnectionLoss } from '../db/connection-loss.ts';
import { errorResponse, HttpError, ServiceBusy } from './errors.ts';
import { setJsonBody } from './response-headers.ts';

function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/**
 * PostgreSQL's foreign_key_violation: a write pointed at a record (a family, a category, a tag...)
 * that a concurrent delete removed after the write had checked it.
 */
function isVanishedReference(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23503';
}

/** A crash recovery of PostgreSQL takes about a second; a client waiting twice that mostly succeeds. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * PostgreSQL's lock_not_available: a statement waited DB_LOCK_TIMEOUT_MS for a row or table another
 * transaction holds (an import writing into the account, a deletion) and was cancelled, its
 * transaction with it (db/session-options.ts).
 */
function isLockTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '55P03';
}

/** An import of 200,000 rows holds its account for about 20 seconds: a few tries cover most of it. */
const LOCK_RETRY_AFTER_SECONDS = 5;

/** What a failure answers: its status, extra headers and the documented body (a 500 is logged here). */
export function errorAnswer(
  caught: unknown,
  log: Logger,
): { status: number; headers: Record<string, string>; body: unknown } {
  let error = caught;
  if (isConnectionLoss(error)) {
    // A passing state the client can wait out, not a fault of the service (docs/faults.md).
    log.warn({ err: error }, 'database out of reach: answered 503');
    error = new ServiceBusy(DATABASE_RETRY_AFTER_SECONDS);
  } else if (isLockTimeout(error)) {
    log.warn({ err: error }, 'a lock the request needs stayed held: answered 503');
    error = new ServerBusy(
      LOCK_RETRY_AFTER_SECONDS,
      `Another change to the same records (such as an import into the account) is still running; nothing was written. Try again in ${LOCK_RETRY_AFTER_SECONDS} seconds.`,
    );
  }
  if (error instanceof DomainError || error instanceof HttpError) return errorResponse(error);
  if (isDataException(error)) {
    // Last line of defence: input the contract let through but PostgreSQL cannot store or
    // compare (SQLSTATE class 22) is the client's mistake, not a server fault.
    log.warn({ err: error }, 'database refused a value from the request');
    const message = 'A value in the request cannot be stored or compared (it is out of range or malformed)';
    return { status: 422, headers: {}, body: { error: 'validation_failed', message, errors: [{ message }] } };
  }
  if (isVanishedReference(error)) {
    // Nothing was written (the statement failed whole); the client learns which race it lost.
    log.warn({ err: error }, 'a record the request refers to was deleted meanwhile');
    const message = 'A record this request refers to was deleted while the request ran';
    return { status: 422, headers: {}, body: { error: 'validation_failed', message, errors: [{ message }] } };
  }
  log.error({ err: error }, 'unhandled error');
  const message = 'An unexpected error occurred; it has been logged with the request id';
  return { status: 500, headers: {}, body: { error: 'internal_error', message, errors: [{ message }] } };
}

/**
 * Every failure leaves as the documented error body (errorAnswer). Domain errors get the status of
 * their kind and HTTP errors keep their own; a database out of reach (restarting, or no connection
 * free in time) is a 503 with Retry-After; anything else is a 500 whose details are logged with the
 * request id, never sent.
 */
export function answerFailure(ctx: Context, caught: unknown): void {
  const { status, headers, body } = errorAnswer(caught, ctx.state.log);
  ctx.status = status;
  ctx.set(headers);
  setJsonBody(ctx, body);
}

/** Koa's own 404 (no route) and the route table's 405 (wrong method) in the error shape. */
export function answerUnrouted(ctx: Context): void {
  if (ctx.status < 400 || ctx.body != null) return;
  const code = ctx.status === 405 ? 'method_not_allowed' : 'not_found';
  const message =
    ctx.status === 405 ? `${ctx.method} is not allowed on ${ctx.path}` : `No route for ${ctx.method} ${ctx.path}`;
  ctx.status = ctx.status === 405 ? 405 : 404;
  setJsonBody(ctx, { error: code, message, errors: [{ message }] });
}
