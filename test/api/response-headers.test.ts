import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  ({ server, household } = await startWithTwoHouseholds());
});
afterAll(() => server?.close());

const raw = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, init);

describe('response headers', () => {
  it('mark every API answer, errors included, as not to be sniffed or stored', async () => {
    const key = { 'X-Api-Key': household.writeKey };
    const answers = [
      await raw('/api/v1/accounts', { headers: key }), // 200
      await raw('/api/v1/accounts'), // 401
      await raw('/api/v1/accounts/00000000-0000-0000-0000-000000000000', { headers: key }), // 404
      await raw('/api/v1/accounts?per_page=0', { headers: key }), // 422
      await raw('/api/v1/accounts', {
        method: 'POST',
        headers: { ...key, 'Content-Type': 'application/json' },
        body: '{',
      }), // 400
      await raw('/api/v1/accounts', { method: 'PUT', headers: key }), // 405
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 422, 400, 405]);
    for (const answer of answers) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('leave the public contract and the docs page cacheable as they say', async () => {
    const contract = await raw('/api/v1/openapi.json');
    expect(contract.headers.get('x-content-type-options')).toBe('nosniff');
    expect(contract.headers.get('cache-control')).not.toBe('no-store');
    const docs = await raw('/docs');
    expect(docs.headers.get('cache-control')).toBe('no-cache');
  });
});
