import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Issue 28, item 10: the API's root answers with an index instead of a 404.
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('GET /api/v1', () => {
  it('answers without a credential with the version and links that resolve to the docs and the contract', async () => {
    const index = await server.api.call('getApiIndex');
    expect(index.status).toBe(200);
    expect(index.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    const contract = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
      info: { title: string; version: string };
    };
    expect(index.body).toEqual({
      data: {
        name: contract.info.title,
        version: contract.info.version,
        links: { docs: '/docs', openapi: '/api/v1/openapi.json' },
      },
    });
    for (const link of Object.values(index.body.data.links as Record<string, string>)) {
      expect((await fetch(new URL(link, `${server.baseUrl}/api/v1`))).status, link).toBe(200);
    }
  });

  it('refuses a query parameter it does not define, like every operation', async () => {
    const refused = await server.api.call('getApiIndex', { query: { foo: '1' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ message: 'foo is not a known query parameter', path: '/query/foo' }]);
  });
});
