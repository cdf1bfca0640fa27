import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Logger } from 'pino';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * What a request carries from middleware to handler (Koa's `ctx.state`): its logger, a child made
 * on first use (with the access log off, a request that logs nothing costs no child logger).
 */
class RequestState {
  private child: Logger | undefined;

  constructor(
    private readonly logger: Logger,
    readonly requestId: string,
  ) {}

  get log(): Logger {
    return (this.child ??= this.logger.child({ requestId: this.requestId }));
  }
}

/**
 * Gives a request an id (the caller's X-Request-Id when sane) and its logger (`ctx.state.log`);
 * the function it returns writes the one access-log line, with the client address
 * (http/client-address.ts): who a refusal or a flood came from.
 */
export function startRequestLog(ctx: Context, logger: Logger): () => void {
  const offered = ctx.get('x-request-id');
  const id = REQUEST_ID.test(offered) ? offered : randomUUID();
  ctx.res.setHeader('X-Request-Id', id);
  ctx.state = new RequestState(logger, id);
  const started = performance.now();
  return () => {
    if (!logger.isLevelEnabled('info')) return;
    ctx.state.log.info(
      {
        method: ctx.method,
        path: ctx.path,
        address: ctx.ip,
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  };
}
