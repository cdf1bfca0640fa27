import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** The app with a pool of two connections, and a request waiting at most 1 s for one. */
let server: TestServer;
let reader: TestHousehold;

beforeAll(async () => {
  server = await startTestServer({}, { pool: { size: 2, acquireTimeoutMs: 1000 } });
  reader = await createHousehold(server);
});
afterAll(() => server?.close());

const listAccounts = () => server.api.call('listAccounts', { key: reader.readKey });

it('answers 503 with Retry-After, not 500, when no connection comes free in time, and serves again after', async () => {
  const { client } = server.orm.em.getKnex();
  const held = [await client.acquireConnection(), await client.acquireConnection()];
  try {
    const busy = await listAccounts();
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('2');
    expect(busy.body).toEqual({
      error: 'service_unavailable',
      message: 'The service is busy; try again in 2 seconds',
      errors: [{ message: 'The service is busy; try again in 2 seconds' }],
    });
  } finally {
    for (const connection of held) await client.releaseConnection(connection);
  }
  expect((await listAccounts()).status).toBe(200);
});
