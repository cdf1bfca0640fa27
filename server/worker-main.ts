import { loadConfig } from './config.ts';
import { resolveDatabase } from './db/database.ts';
import { takeOverStopSignals } from './db/embedded-postgres.ts';
import { openOrm } from './db/orm.ts';
import { lowerProcessPriority } from './jobs/job-priority.ts';
import { startWorker, surviveLostConnections } from './jobs/worker.ts';
import { createLogger } from './core/logger.ts';

/** `npm run worker`: the background jobs alone (with `WORKER_ENABLED=false` on the API processes). */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await resolveDatabase(config, logger);
  // Not when this process runs the embedded database: a postmaster it restarts would inherit it.
  if (config.databaseUrl) lowerProcessPriority(config.workerNiceness, logger);
  // Migrations first, so a worker started alone finds the schema its jobs read.
  const orm = await openOrm(database.url, 1);
  await orm.close();
  const worker = await startWorker({
    connectionString: database.url,
    concurrency: config.workerConcurrency,
    aiConcurrency: config.aiWorkerConcurrency,
    pollIntervalMs: config.workerPollIntervalMs,
    niceness: config.workerNiceness,
    ai: config.ai,
    imports: config.imports,
    logger: logger.child({ component: 'worker' }),
  });
  surviveLostConnections(worker, logger);
  logger.info({ concurrency: config.workerConcurrency, aiConcurrency: config.aiWorkerConcurrency }, 'worker running');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping after its running jobs');
    await worker.stop();
    await database.stop();
    process.exit(0);
  };
  takeOverStopSignals((signal) => void stop(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
