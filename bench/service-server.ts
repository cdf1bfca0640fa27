import { randomBytes } from 'node:crypto';
/**
 * The real service for the benchmark, in a process of its own so the load generator does not share
 * its event loop: createApp (server/app.ts) with a MikroORM pool and a statement pool of DB_POOL_SIZE
 * connections each, and a pino logger at 'warn' (the access log is written at 'info', so it is off). Started by api.bench.ts with
 * `node --import tsx bench/service-server.ts` (plus `--cpu-prof` when profiling); env: DATABASE_URL, DB_POOL_SIZE.
 * Reports its port over IPC; stops on SIGTERM/SIGINT or the IPC message 'stop' (exiting normally,
 * so that --cpu-prof writes its profile).
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../server/app.ts';
import type { CredentialRow } from '../server/http/access-gate.ts';
import { CredentialCache } from '../server/http/credential-cache.ts';
import { loadConfig } from '../server/config.ts';
import { ormOptions } from '../server/db/orm.ts';
import { openStatementPool } from '../server/db/statement-pool.ts';
import { createLogger } from '../server/core/logger.ts';
import './query-counter.ts';
import { serveChild } from './serve-child.ts';

const poolSize = Number(process.env.DB_POOL_SIZE ?? 10);
// The production defaults, except for rate limits: still checked on every request (their cost is
// part of the service), but high enough that a benchmark run never trips them (the defaults allow
// 10,000 requests per credential per hour). RATE_LIMIT_* in the environment override this, and
// LOGIN_* and PASSWORD_HASH_* settings in it are taken (bench/sign-in-memory.bench.ts).
const signIn = Object.entries(process.env).filter(([name]) => /^(LOGIN_|PASSWORD_HASH_)/.test(name));
const config = loadConfig({
  RATE_LIMIT_PER_ADDRESS: process.env.RATE_LIMIT_PER_ADDRESS ?? '1000000000',
  RATE_LIMIT_PER_CREDENTIAL: process.env.RATE_LIMIT_PER_CREDENTIAL ?? '1000000000',
  ...Object.fromEntries(signIn),
});
const orm = await MikroORM.init(
  ormOptions(process.env.DATABASE_URL!, poolSize, config.dbAcquireTimeoutMs, config.dbLockTimeoutMs),
);
const logger = createLogger('warn');
// As in production (server/main.ts): credentials kept while the process listens for their changes.
const credentials = new CredentialCache<CredentialRow>(process.env.DATABASE_URL!, logger);
await credentials.start();
const statements = openStatementPool(
  process.env.DATABASE_URL!,
  poolSize,
  config.dbAcquireTimeoutMs,
  logger,
  config.dbLockTimeoutMs,
);
const app = await createApp({ config, orm, statements, logger, sealingKey: randomBytes(32), credentials });
serveChild(app.callback(), async () => {
  await credentials.stop();
  await statements.end();
  await orm.close();
});
