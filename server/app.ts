import Koa from 'koa';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { handlers } from './handlers.ts';
import { createApiRouter } from './http/api-router.ts';
import { errorMiddleware } from './http/error-middleware.ts';
import { docsRoutes } from './http/docs-routes.ts';
import { loadOpenApiDocument, type OpenApiDocument } from './http/openapi-document.ts';
import { createAccessGate, type RateLimitConfig } from './http/access-gate.ts';
import { requestLog } from './http/request-log.ts';

export interface AppDependencies {
  config: Pick<Config, 'jsonBodyLimit' | 'trustProxy'> & RateLimitConfig;
  orm: MikroORM;
  logger: Logger;
  /** The bundled contract; read from openapi/dist when not given. */
  document?: OpenApiDocument;
}

/** The Koa application: middleware order in one place. No listen() here. */
export async function createApp({
  config,
  orm,
  logger,
  document = loadOpenApiDocument(),
}: AppDependencies): Promise<Koa> {
  const app = new Koa({ proxy: config.trustProxy });
  const documentJson = JSON.stringify(document);

  const publicRoutes = new Router();
  publicRoutes.get('/api/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentJson;
  });
  publicRoutes.get('/', (ctx) => ctx.redirect('/docs'));

  const apiRoutes = await createApiRouter({
    document,
    handlers,
    orm,
    jsonBodyLimit: config.jsonBodyLimit,
    accessGate: createAccessGate(config),
  });

  app.use(requestLog(logger));
  app.use(errorMiddleware());
  app.use(publicRoutes.routes());
  app.use(docsRoutes().routes());
  app.use(apiRoutes.routes());
  app.use(apiRoutes.allowedMethods({ throw: false }));
  return app;
}
