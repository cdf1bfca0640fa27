import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import { createApp, type AppDependencies } from '../../server/app.ts';
import { CSV_CONTENT_LIMIT, loadConfig } from '../../server/config.ts';

type AppConfig = AppDependencies['config'];
import { databaseUrl, ensureDatabase } from '../../server/db/embedded-postgres.ts';
import { ormOptions, type EntityManager } from '../../server/db/orm.ts';
import { openStatementPool } from '../../server/db/statement-pool.ts';
import { createHttpServer } from '../../server/http/http-server.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { ContractClient } from './contract-client.ts';

const TEMPLATE_DATABASE = 'finance_test_template';

/**
 * The two kinds of TRUST_PROXY with the test client's socket (127.0.0.1) as the proxy in front of the
 * app: a test's `X-Forwarded-For: <client's own words>, <address the proxy saw>` then comes from it.
 */
export const BEHIND_A_PROXY = [
  ['TRUST_PROXY=true (one hop)', { kind: 'hops', hops: 1 }],
  ['TRUST_PROXY listing the proxy', { kind: 'list', proxies: [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' }] }],
] as const;

/**
 * An AI provider at a closed port: the chat operations are open, and a reply a job writes fails at
 * once, as against a provider that is down. For tests whose chats never need a real reply.
 */
export const AI_STAND_IN = {
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: undefined,
  model: 'stand-in',
  timeoutSeconds: 1,
  maxRetries: 0,
  contextTokens: 12_000,
  retryAfterMaxSeconds: 30,
  replyTimeoutSeconds: 300,
};

/** The JSON limit tests run with: above the CSV limit, as in production. */
export const TEST_JSON_LIMIT = CSV_CONTENT_LIMIT + 2 * 1024 * 1024;

export interface TestServer {
  baseUrl: string;
  /** Connection string of this file's database. */
  databaseUrl: string;
  api: ContractClient;
  orm: MikroORM;
  /** The app's pool for statements outside a unit of work (db/statement-pool.ts). */
  statements: pg.Pool;
  /** A fresh EntityManager on this file's database. */
  em(): EntityManager;
  /** Runs every due background job (graphile-worker's runOnce): the way tests wait for syncs, never sleeps. */
  drainJobs(): Promise<void>;
  /** The key sealing second-factor secrets in this app. */
  sealingKey: Buffer;
  /** The app's clock: the real time moved by `advance` (for expiry), back with `reset`. */
  time: { now(): number; advance(ms: number): void; reset(): void };
  /** Runs SQL on this file's database (for row counts and direct changes). */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** A database of its own (cloned from the migrated template) and the real app on a real port. */
export async function startTestServer(
  overrides: Partial<AppConfig> = {},
  options: { sealingKey?: Buffer; pool?: { size?: number; acquireTimeoutMs?: number; lockTimeoutMs?: number } } = {},
): Promise<TestServer> {
  const adminUrl = inject('adminDatabaseUrl');
  if (!adminUrl) throw new Error('no test database here: add this file to DATABASE_TESTS in vitest.config.ts');
  const name = `finance_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await ensureDatabase(adminUrl, name, TEMPLATE_DATABASE);
  const url = databaseUrl(adminUrl, name);
  const poolSize = options.pool?.size ?? 5;
  const acquireTimeoutMs = options.pool?.acquireTimeoutMs ?? 10_000;
  const config = { ...loadConfig({}), jsonBodyLimit: TEST_JSON_LIMIT, ...overrides };
  const lockTimeoutMs = options.pool?.lockTimeoutMs ?? config.dbLockTimeoutMs;
  const orm = await MikroORM.init(ormOptions(url, poolSize, acquireTimeoutMs, lockTimeoutMs));
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const statements = openStatementPool(url, poolSize, acquireTimeoutMs, logger, lockTimeoutMs);
  const sealingKey = options.sealingKey ?? randomBytes(32);
  let offset = 0;
  const time = {
    now: () => Date.now() + offset,
    advance: (ms: number) => void (offset += ms),
    reset: () => void (offset = 0),
  };
  const app = await createApp({
    config,
    orm,
    statements,
    logger,
    sealingKey,
    clock: time.now,
  });
  const server = createHttpServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    baseUrl,
    databaseUrl: url,
    api: new ContractClient(baseUrl),
    orm,
    statements,
    sealingKey,
    time,
    em: () => orm.em.fork(),
    drainJobs: () => drainJobs(url, { ai: config.ai, imports: config.imports, clock: time.now }),
    query: async <Row>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as Row[],
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all([endPool(pool), endPool(statements)]);
      await orm.close();
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      await admin.end();
    },
  };
}

/**
 * Ends a pool once its connections have closed. pool.end() resolves once its clients are told to
 * end, before their connections close; the forced drop of the database would then kill a backend
 * still saying goodbye, whose FATAL reaches a client no pool listens to any more (an unhandled
 * error). The pool says 'remove' once a client is closed.
 */
async function endPool(pool: pg.Pool): Promise<void> {
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => --open === 0 && resolve());
  });
  await pool.end();
  await closed;
}
