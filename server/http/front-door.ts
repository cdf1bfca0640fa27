import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { ProxyTrust } from '../config.ts';
import { clientAddress, trustedHop } from './client-address.ts';
import { answerFailure, answerUnrouted } from './error-answer.ts';
import { startRequestLog } from './request-log.ts';
import { setResponseHeaders } from './response-headers.ts';

/**
 * First in the chain, what every request goes through before any route: the client address where
 * Koa keeps it (`ctx.ip`, for the access log, rate limits and sign-in throttling: the app runs with
 * Koa's `proxy` off, so Koa itself never reads forwarded headers), a request id and logger, the
 * headers every answer carries, and every failure answered in the error shape. One middleware
 * rather than four: each layer of Koa's chain costs a promise and a closure per request.
 */
export function frontDoor(trust: ProxyTrust, logger: Logger): Middleware {
  const trusted = trustedHop(trust);
  return async (ctx, next) => {
    ctx.request.ip = clientAddress(
      ctx.req.socket.remoteAddress ?? '',
      ctx.get('x-forwarded-for') || undefined,
      trusted,
    );
    const logAnswer = startRequestLog(ctx, logger);
    setResponseHeaders(ctx);
    try {
      await next();
      answerUnrouted(ctx);
    } catch (caught) {
      answerFailure(ctx, caught);
    } finally {
      logAnswer();
    }
  };
}
