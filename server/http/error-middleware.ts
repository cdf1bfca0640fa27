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
      // Koa's own 404 (no route) and the router's 405 (wrong method) have no body yet.
      if (ctx.status >= 400 && ctx.body == null) {
        const code = ctx.status === 405 ? 'method_not_allowed' : 'not_found';
        const message = ctx.status === 405 ? `${ctx.method} is not allowed on ${ctx.path}` : `No route for ${ctx.method} ${ctx.path}`;
        ctx.status = ctx.status === 405 ? 405 : 404;
        ctx.body = { error: code, message, errors: [{ message }] };
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
