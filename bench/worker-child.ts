/**
 * The job runner for the mixed-load and import-flood benches, in a process of its own: `startWorker` (as `npm run
 * worker` runs it) on DATABASE_URL with WORKER_CONCURRENCY jobs at once and a 'warn' logger.
 * Reports over IPC like bench/serve-child.ts (port 0: it serves nothing) and, on the message
 * 'stop', lets its running jobs finish and exits normally.
 */
import { loadConfig } from '../server/config.ts';
import { lowerProcessPriority } from '../server/jobs/job-priority.ts';
import { startWorker } from '../server/jobs/worker.ts';
import { createLogger } from '../server/core/logger.ts';

const config = loadConfig();
lowerProcessPriority(config.workerNiceness, undefined);
const worker = await startWorker({
  connectionString: process.env.DATABASE_URL!,
  concurrency: config.workerConcurrency,
  pollIntervalMs: config.workerPollIntervalMs,
  niceness: config.workerNiceness,
  imports: config.imports,
  logger: createLogger('warn'),
});
process.send?.({ ready: true, port: 0 });
process.on('message', (message) => {
  if (message === 'stop') void worker.stop().then(() => process.exit(0));
});
