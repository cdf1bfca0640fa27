/**
 * The real service for the benchmark, in a process of its own so the load generator does not share
 * its event loop: createApp (server/app.ts) with a MikroORM pool of DB_POOL_SIZE and a pino logger
 * at 'warn' (the access log is written at 'info', so it is off). Started by api.bench.ts with
 * `node --import tsx bench/service-server.ts` (plus `--cpu-prof` when profiling); env: DATABASE_URL, DB_POOL_SIZE.
 * Reports its port over IPC; stops on SIGTERM/SIGINT or the IPC message 'stop' (exiting normally,
 * so that --cpu-prof writes its profile).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { ormOptions } from '../server/db/orm.ts';
import { createLogger } from '../server/logger.ts';
import './query-counter.ts';

const orm = await MikroORM.init(ormOptions(process.env.DATABASE_URL!, Number(process.env.DB_POOL_SIZE ?? 10)));
// The production defaults, except for rate limits: still checked on every request (their cost is
// part of the service), but high enough that a benchmark run never trips them (the defaults allow
// 10,000 requests per credential per hour). RATE_LIMIT_* in the environment override this.
const config = loadConfig({
  RATE_LIMIT_PER_ADDRESS: process.env.RATE_LIMIT_PER_ADDRESS ?? '1000000000',
  RATE_LIMIT_PER_CREDENTIAL: process.env.RATE_LIMIT_PER_CREDENTIAL ?? '1000000000',
});
const app = await createApp({
  config,
  orm,
  logger: createLogger('warn'),
});
// app.listen() is http.createServer(app.callback()).listen(); done by hand to count requests in
// flight, so that stopping waits for them instead of closing the pool under them.
const handle = app.callback();
let inFlight = 0;
const server = http.createServer((request, response) => {
  inFlight++;
  void Promise.resolve(handle(request, response)).finally(() => inFlight--);
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Requests still in flight when the load generator stops are answered before the pool closes.
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 5000).unref();
  await closed;
  for (let waited = 0; inFlight > 0 && waited < 10_000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await orm.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
