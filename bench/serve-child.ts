import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../server/http/http-server.ts';

/**
 * The child side of bench/children.ts: serves `handle` on a free loopback port, reports the port to
 * the parent over IPC, and on SIGTERM, SIGINT or the message 'stop' closes the server, lets requests
 * in flight finish (the pool must not close under them), runs `release` and exits normally (so that
 * --cpu-prof writes its profile).
 */
export function serveChild(
  handle: (request: http.IncomingMessage, response: http.ServerResponse) => unknown,
  release: () => Promise<void>,
): void {
  let inFlight = 0;
  const server = createHttpServer((request, response) => {
    inFlight++;
    void Promise.resolve(handle(request, response)).finally(() => inFlight--);
  });
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
    for (let waited = 0; inFlight > 0 && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await release();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('message', (message) => {
    if (message === 'stop') void stop();
  });
}
