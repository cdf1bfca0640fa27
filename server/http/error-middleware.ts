import type { Middleware } from 'koa';
import { AppError } from './errors.ts';

/**
 * First in the chain: every failure leaves as the documented error body. AppErrors carry their
 * own status; anything else is a 500 whose details are logged with the request id, never sent.
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: 'not_found', message: `No route for ${ctx.method} ${ctx.path}`, errors: [{ message: `No route for ${ctx.method} ${ctx.path}` }] };
      }
    } catch (error) {
      if (error instanceof AppError) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = error.toJSON();
        return;
      }
      ctx.state.log.error({ err: error }, 'unhandled error');
      const message = 'An unexpected error occurred; it has been logged with the request id';
      ctx.status = 500;
      ctx.body = { error: 'internal_error', message, errors: [{ message }] };
    }
  };
}
