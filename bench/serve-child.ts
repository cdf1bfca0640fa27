import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../server/http/http-server.ts';
import { statementsSent } from './query-counter.ts';

/**
 * The child side of bench/children.ts: serves `handle` on a free loopback port, reports the port to
 * the parent over IPC, and on SIGTERM, SIGINT or the message 'stop' closes the server, lets requests
 * in flight finish (the pool must not close under them), runs `release` and exits normally (so that
 * --cpu-prof writes its profile). On `{ type: 'counts' }` it waits until no request is in flight
 * (those a load generator gave up on at its end still run here) and reports the requests it has
 * answered and the statements it has sent (query-counter.ts).
 */
export function serveChild(
  handle: (request: http.IncomingMessage, response: http.ServerResponse) => unknown,
  release: () => Promise<void>,
): void {
  let inFlight = 0;
  let answered = 0;
  const server = createHttpServer((request, response) => {
    inFlight++;
    void Promise.resolve(handle(request, response)).finally(() => {
      inFlight--;
      answered++;
    });
  });
  const settled = async () => {
    for (let waited = 0; inFlight > 0 && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
    await closed;
    await settled();
    await release();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('message', (message: unknown) => {
    if (message === 'stop') void stop();
    if ((message as { type?: string } | null)?.type === 'counts') {
      void settled().then(() => process.send?.({ type: 'counts', requests: answered, statements: statementsSent() }));
    }
  });
}
