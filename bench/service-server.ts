/**
 * The real service for the benchmark, in a process of its own so the load generator does not share
 * its event loop: createApp (server/app.ts) with a MikroORM pool of DB_POOL_SIZE and a pino logger
 * at 'warn' (the access log is written at 'info', so it is off). Started by api.bench.ts with
 * `node --import tsx bench/service-server.ts` (plus `--cpu-prof` when profiling); env: DATABASE_URL, DB_POOL_SIZE.
 * Reports its port over IPC; stops on SIGTERM/SIGINT or the IPC message 'stop' (exiting normally,
 * so that --cpu-prof writes its profile).
 */
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { ormOptions } from '../server/db/orm.ts';
import { createLogger } from '../server/logger.ts';

const orm = await MikroORM.init(ormOptions(process.env.DATABASE_URL!, Number(process.env.DB_POOL_SIZE ?? 10)));
const app = await createApp({
  config: { jsonBodyLimit: loadConfig({}).jsonBodyLimit }, // the production default
  orm,
  logger: createLogger('warn'),
});
const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await orm.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
