import os from 'node:os';
import Koa from 'koa';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { authHandlers } from './auth/auth.handlers.ts';
import { chatsHandlers } from './assistant/chats.handlers.ts';
import type { AuthDependencies } from './auth/auth-dependencies.ts';
import type { LoginThrottleConfig } from './auth/login-throttle.ts';
import { mobileSsoHandlers } from './auth/mobile-sso.handlers.ts';
import { ssoProviders } from './auth/sso-providers.ts';
import { ssoErrorRedirect } from './auth/sso-redirect.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { WorkSlots } from './core/work-slots.ts';
import type { Config } from './config.ts';
import { handlers } from './handlers.ts';
import { importsHandlers } from './imports/imports.handlers.ts';
import { usersHandlers } from './users/users.handlers.ts';
import { createApiRouter } from './http/api-router.ts';
import { apiIndexHandler, SERVICE_PATHS } from './http/api-index.ts';
import { docsRoutes } from './http/docs-routes.ts';
import { loadOpenApiDocument, type OpenApiDocument } from './http/openapi-document.ts';
import { frontDoor } from './http/front-door.ts';
import { createAccessGate, type CredentialRow, type RateLimitConfig } from './http/access-gate.ts';
import type { CredentialCache } from './http/credential-cache.ts';
import { discardImportFile, type UploadStore } from './imports/import-files.ts';
import type { Queryable } from './core/sql.ts';

export interface AppDependencies {
  config: Pick<
    Config,
    | 'jsonBodyLimit'
    | 'trustProxy'
    | 'publicUrl'
    | 'mobileAppRedirectUrl'
    | 'defaultCurrency'
    | 'ssoProviders'
    | 'ai'
    | 'aiMessagesPerHour'
    | 'passwordHashConcurrency'
    | 'passwordHashWaitMs'
    | 'imports'
    | 'workerNiceness'
  > &
    RateLimitConfig &
    LoginThrottleConfig;
  orm: MikroORM;
  /** Where handlers' statements outside a unit of work run (db/statement-pool.ts); the caller ends it. */
  statements: Queryable;
  logger: Logger;
  /** Seals second-factor secrets (auth/secret-box.ts). */
  sealingKey: Buffer;
  /** The time, for every expiry; tests move it. */
  clock?: Clock;
  /** The bundled contract; read from openapi/dist when not given. */
  document?: OpenApiDocument;
  /** Credentials kept between requests (started and stopped by the caller); without it each request looks its credential up. */
  credentials?: CredentialCache<CredentialRow>;
}

/** The Koa application: middleware order in one place. No listen() here. */
export async function createApp({
  config,
  orm,
  statements,
  logger,
  sealingKey,
  clock = systemClock,
  document = loadOpenApiDocument(),
  credentials,
}: AppDependencies): Promise<Koa> {
  // Koa's `proxy` would believe the left-most X-Forwarded-For entry: the client address is ours.
  const app = new Koa({ proxy: false });
  // Import requests that move much data (a 10 MiB CSV in, a million staged rows out) run at most a
  // quarter of the pool's size at once, and at most one per two cores (each keeps one busy: parsing
  // here, compressing into TOAST in its backend), so a flood of them leaves the rest to everyone else.
  const poolShare = Math.floor((orm.config.get('pool')?.max ?? 1) / 4);
  const importSlots = new WorkSlots(
    Math.max(1, Math.min(poolShare, Math.floor(os.availableParallelism() / 2))),
    Infinity,
  );
  const documentJson = JSON.stringify(document);

  const publicRoutes = new Router();
  publicRoutes.get(SERVICE_PATHS.openapi, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentJson;
  });
  publicRoutes.get('/', (ctx) => ctx.redirect(SERVICE_PATHS.docs));

  const auth: AuthDependencies = {
    config,
    throttle: config,
    passwordHashes: new WorkSlots(config.passwordHashConcurrency, config.passwordHashWaitMs),
    sealingKey,
    clock,
    providers: ssoProviders(config.ssoProviders),
  };
  const apiRoutes = await createApiRouter({
    document,
    handlers: {
      ...handlers,
      ...authHandlers(auth),
      ...mobileSsoHandlers(auth),
      ...chatsHandlers({
        defaultModel: config.ai?.model ?? '',
        limit: { perHour: config.aiMessagesPerHour },
      }),
      ...importsHandlers(config.imports),
      getApiIndex: apiIndexHandler(document),
      ...usersHandlers({ ...auth, aiAvailable: config.ai !== undefined }),
    },
    aiAvailable: config.ai !== undefined,
    orm,
    statements,
    jsonBodyLimit: config.jsonBodyLimit,
    accessGate: createAccessGate(config, clock, credentials),
    errorRedirect: ssoErrorRedirect(config.mobileAppRedirectUrl),
    admission: { createImport: importSlots, deleteImport: importSlots },
    // A CSV of up to 10 MiB arrives as one JSON string; a large one is stored by the body thread.
    offThread: {
      createImport: {
        field: 'raw_file_content',
        store: {
          module: new URL('./imports/import-files.ts', import.meta.url).href,
          options: { databaseUrl: orm.config.get('clientUrl'), niceness: config.workerNiceness } satisfies UploadStore,
        },
        // Unless the import took it: a replayed Idempotency-Key or a refusal leaves no file behind.
        discard: (db, stored) => discardImportFile(db, stored.id),
      },
    },
    clock,
  });

  app.use(frontDoor(config.trustProxy, logger));
  // The API first: most requests are the API's, and its table is one lookup.
  app.use(apiRoutes.middleware());
  app.use(publicRoutes.routes());
  app.use(docsRoutes().routes());
  return app;
}
