import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../server/api-keys/api-key.entity.ts';
import { issueApiKey, revokeApiKey } from '../../server/api-keys/api-key.service.ts';
import { loadConfig } from '../../server/config.ts';
import { handlers } from '../../server/handlers.ts';
import { createAccessGate } from '../../server/http/access-gate.ts';
import { createApiRouter } from '../../server/http/api-router.ts';
import { loadOpenApiDocument } from '../../server/http/openapi-document.ts';
import { User } from '../../server/users/user.entity.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const INVALID = 'Access token or API key is invalid, expired, or missing';

let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
});
afterAll(() => server?.close());

async function keyFor(options: { expiresAt?: Date; revoke?: boolean }): Promise<string> {
  const em = server.em();
  const user = await em.findOneOrFail(User, household.userId);
  const { key, apiKey } = await issueApiKey(em, { user, scope: 'read_write', expiresAt: options.expiresAt ?? null });
  if (options.revoke) await revokeApiKey(em, apiKey);
  return key;
}

describe('API keys', () => {
  it('accepts a valid key', async () => {
    expect((await server.api.call('listTags', { key: household.readKey })).status).toBe(200);
  });

  it.each([
    ['no key', {}],
    ['an empty key', { 'x-api-key': '' }],
    ['a key of the wrong shape', { 'x-api-key': 'not-a-key' }],
    ['an unknown key', { 'x-api-key': 'a'.repeat(64) }],
  ])('refuses %s with 401', async (_, headers) => {
    const response = await server.api.call('listTags', { headers });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'unauthorized', message: INVALID, errors: [{ message: INVALID }] });
  });

  it('refuses a revoked key', async () => {
    const response = await server.api.call('listTags', { key: await keyFor({ revoke: true }) });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe(INVALID);
  });

  it('refuses an expired key and accepts one that has not expired yet', async () => {
    const expired = await server.api.call('listTags', {
      key: await keyFor({ expiresAt: new Date(Date.now() - 1000) }),
    });
    expect(expired.status).toBe(401);
    const fresh = await server.api.call('listTags', {
      key: await keyFor({ expiresAt: new Date(Date.now() + 3_600_000) }),
    });
    expect(fresh.status).toBe(200);
  });

  it('stores only a digest of the key', async () => {
    const rows = await server.query<{ key_digest: string }>('select key_digest from api_keys');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((row) => row.key_digest)).not.toContain(household.writeKey);
    const em = server.em();
    expect(await em.count(ApiKey, { keyDigest: household.writeKey })).toBe(0);
  });

  it('refuses every key of a deactivated user with its own message', async () => {
    const other = await createHousehold(server);
    await server.query('update users set active = false where id = $1', [other.userId]);
    const response = await server.api.call('listTags', { key: other.readKey });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: 'unauthorized', message: 'Account has been deactivated' });
  });

  it('tries a bearer token first: an invalid one is 401 even with a valid key', async () => {
    const response = await server.api.call('listTags', {
      key: household.readKey,
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe(INVALID);
  });
});

describe('scopes', () => {
  it('lets a read key read and refuses it every change with 403 insufficient_scope', async () => {
    expect((await server.api.call('listTransactions', { key: household.readKey })).status).toBe(200);
    const response = await server.api.call('createTag', { key: household.readKey, body: { tag: { name: 'Nope' } } });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'insufficient_scope',
      message: "This action requires the 'read_write' scope",
      errors: [{ message: "This action requires the 'read_write' scope" }],
    });
    expect(await server.query('select count(*)::int as n from tags')).toEqual([{ n: 0 }]);
  });

  it('checks the credential before the body: no key and a bad body is 401', async () => {
    const response = await server.api.request('POST', '/api/v1/tags', { body: '{not json' });
    expect(response.status).toBe(401);
  });
});

describe('handlers', () => {
  it('refuses to build the API when an operation of the contract has no handler', async () => {
    await expect(
      createApiRouter({
        document: loadOpenApiDocument(),
        handlers: { ...handlers, listTags: undefined },
        orm: server.orm,
        statements: server.statements,
        jsonBodyLimit: 1024,
        accessGate: createAccessGate(loadConfig({}), Date.now),
        aiAvailable: false,
      }),
    ).rejects.toThrow(/without a handler: .*listTags/);
  });
});

describe('routes outside the contract', () => {
  it('answers an unknown path with 404 in the error shape', async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers a known path with the wrong method with 405 in the error shape', async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/tags`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/GET/);
    expect(await response.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('answers OPTIONS on a known path with the methods it takes, HEAD as GET without a body', async () => {
    const options = await fetch(`${server.baseUrl}/api/v1/tags`, { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    const head = await fetch(`${server.baseUrl}/api/v1/tags`, {
      method: 'HEAD',
      headers: { 'X-Api-Key': household.readKey },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('matches paths case-sensitively and ignores one trailing slash', async () => {
    const headers = { 'X-Api-Key': household.readKey };
    expect((await fetch(`${server.baseUrl}/api/v1/tags/`, { headers })).status).toBe(200);
    const upper = await fetch(`${server.baseUrl}/api/v1/TAGS`, { headers });
    expect(upper.status).toBe(404);
    expect(await upper.json()).toMatchObject({ error: 'not_found' });
  });
});
