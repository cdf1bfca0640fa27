import type { Server } from 'node:http';
import { createApp } from './app.ts';
import type { CredentialRow } from './http/access-gate.ts';
import { CredentialCache } from './http/credential-cache.ts';
import { loadSealingKey } from './auth/secret-box.ts';
import { pruneSsoRecords } from './auth/sso-codes.ts';
import { loadConfig } from './config.ts';
import { resolveDatabase } from './db/database.ts';
import { takeOverStopSignals } from './db/embedded-postgres.ts';
import { openOrm } from './db/orm.ts';
import { openStatementPool } from './db/statement-pool.ts';
import { ensureDemoAccess } from './demo/demo-access.ts';
import { pruneRateLimits } from './core/rate-limit.ts';
import { sqlOn } from './core/sql.ts';
import { SERVICE_PATHS } from './http/api-index.ts';
import { createHttpServer } from './http/http-server.ts';
import { startWorker, surviveLostConnections } from './jobs/worker.ts';
import { createLogger } from './core/logger.ts';

/** Process entry: config -> database -> migrations -> demo data -> HTTP; stops in reverse order on a signal. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await resolveDatabase(config, logger);
  const orm = await openOrm(database.url, config.dbPoolSize, config.dbAcquireTimeoutMs, config.dbLockTimeoutMs);
  logger.info('database schema is up to date');

  const demo = config.demoData
    ? await ensureDemoAccess(orm.em.fork(), config.dataDir, logger, { aiAvailable: config.ai !== undefined })
    : undefined;
  const worker = config.workerEnabled
    ? await startWorker({
        connectionString: database.url,
        concurrency: config.workerConcurrency,
        aiConcurrency: config.aiWorkerConcurrency,
        pollIntervalMs: config.workerPollIntervalMs,
        niceness: config.workerNiceness,
        ai: config.ai,
        imports: config.imports,
        logger: logger.child({ component: 'worker' }),
      })
    : undefined;
  surviveLostConnections(worker, logger);
  const sealingKey = loadSealingKey({ envKey: config.mfaEncryptionKey, dataDir: config.dataDir });
  const credentials = new CredentialCache<CredentialRow>(database.url, logger.child({ component: 'credentials' }));
  await credentials.start();
  const statements = openStatementPool(
    database.url,
    config.dbPoolSize,
    config.dbAcquireTimeoutMs,
    logger,
    config.dbLockTimeoutMs,
  );
  const app = await createApp({ config, orm, statements, logger, sealingKey, credentials });
  const server: Server = await new Promise((resolve) => {
    const listening = createHttpServer(app.callback()).listen(config.port, config.host, () => resolve(listening));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://localhost:${port}`;
  logger.info({ port }, 'listening');
  // For the person at the terminal, on stderr: stdout carries only JSON log lines (which a log
  // collector may keep), and the demo key must not end up among them.
  // Every URL printed here answers 200 (test/cli/start.test.ts fetches each).
  process.stderr.write(
    `\nFinance API v1 is running at ${base}${SERVICE_PATHS.index}\n` +
      `  docs:     ${base}${SERVICE_PATHS.docs}\n` +
      `  contract: ${base}${SERVICE_PATHS.openapi}\n` +
      (demo
        ? `  demo user ${demo.email}; read_write API key:\n    ${demo.key}\n` +
          `  try: curl -H "X-Api-Key: ${demo.key}" ${base}/api/v1/transactions?per_page=5\n`
        : '') +
      (config.ai
        ? `  assistant: available, model ${config.ai.model} at ${config.ai.baseUrl ? new URL(config.ai.baseUrl).host : 'OpenAI'}` +
          `${config.workerEnabled ? '' : ' (replies need a worker: npm run worker)'}\n`
        : '  assistant: not available (set AI_BASE_URL, or AI_API_KEY for OpenAI; see README)\n') +
      '\n',
  );

  // Forget rate-limit counters of clients not seen for a whole window, and expired sign-in codes.
  const pruning = setInterval(() => {
    pruneRateLimits(sqlOn(orm.em.fork())).catch((error: unknown) =>
      logger.warn({ err: error }, 'pruning rate limits failed'),
    );
    pruneSsoRecords(orm.em.fork(), Date.now()).catch((error: unknown) =>
      logger.warn({ err: error }, 'pruning sign-in codes failed'),
    );
  }, 10 * 60_000);
  pruning.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(pruning);
    logger.info({ signal }, 'shutting down');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Requests in flight get a few seconds to finish before their connections are cut.
    setTimeout(() => server.closeAllConnections(), 5000).unref();
    await closed;
    // Running jobs finish before the database goes away.
    await worker?.stop();
    await credentials.stop();
    await statements.end();
    await orm.close();
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  takeOverStopSignals((signal) => void stop(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
