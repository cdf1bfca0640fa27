import type { Context } from 'koa';
import type { Clock } from '../core/clock.ts';
import { sqlOn, type SqlTarget } from '../core/sql.ts';
import { idempotencyKeys, requestFingerprint } from '../idempotency/idempotency-store.ts';
import { errorAnswer } from './error-answer.ts';
import { HttpError } from './errors.ts';
import type { Principal } from './principal.ts';
import { setJsonBody, setJsonText } from './response-headers.ts';

/** The request header, as the contract names it (`components/parameters/IdempotencyKey.yaml`). */
export const IDEMPOTENCY_KEY = 'Idempotency-Key';

const KEY_POINTER = '/header/idempotency-key';

export class IdempotencyKeyInUse extends HttpError {
  constructor() {
    const message = 'A request with this Idempotency-Key is still running; send it again once that one has answered';
    super(409, 'idempotency_key_in_use', message, [{ message, path: KEY_POINTER }]);
  }
}

export class IdempotencyKeyReused extends HttpError {
  constructor() {
    const message =
      'This Idempotency-Key was used for another request (method, path or body); use a new key for a new request';
    super(422, 'idempotency_key_reused', message, [{ message, path: KEY_POINTER }]);
  }
}

/**
 * Whether an answer is kept for its key: not a 429 or a 5xx, after which nothing was done and
 * the same request may be sent again.
 */
function kept(status: number): boolean {
  return status < 500 && status !== 429;
}

/**
 * Runs `answer` (the operation's handler, which sets the response) at most once per user and
 * `Idempotency-Key` (docs/api-decisions.md#idempotent-writes): the key is claimed before it runs
 * (409 while another request holds it, 422 when it was used for another request), its answer
 * kept after, and a request seen before gets the kept answer with `Idempotency-Replayed: true`
 * instead of running. Runs after the contract's validation, so a refused request keeps nothing.
 */
export async function answerOnce(
  ctx: Context,
  db: SqlTarget,
  clock: Clock,
  answer: () => Promise<void>,
): Promise<void> {
  const key = ctx.get(IDEMPOTENCY_KEY);
  const principal = ctx.state.principal as Principal | undefined;
  if (!key || !principal) return answer();
  const keys = idempotencyKeys(sqlOn(db), clock, principal.userId, key);
  const found = await keys.claim(requestFingerprint(ctx.method, ctx.path, ctx.request.body));
  if (found.outcome === 'running') throw new IdempotencyKeyInUse();
  if (found.outcome === 'reused') throw new IdempotencyKeyReused();
  if (found.outcome === 'answered') {
    ctx.status = found.status;
    // Koa reads a null body as "no content": a 204 was kept without one.
    if (found.body !== null) setJsonText(ctx, found.body);
    ctx.set('Idempotency-Replayed', 'true');
    return;
  }
  try {
    await answer();
  } catch (error) {
    // The refusal is answered here, as the error middleware would, so that it can be kept.
    const refusal = errorAnswer(error, ctx.state.log);
    ctx.status = refusal.status;
    ctx.set(refusal.headers);
    setJsonBody(ctx, refusal.body);
  }
  // The body is the answer's JSON text (setJsonBody), or none.
  if (kept(ctx.status)) await keys.finish(found.claim, ctx.status, typeof ctx.body === 'string' ? ctx.body : null);
  else await keys.release(found.claim);
}
