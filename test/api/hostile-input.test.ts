import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ERROR_ENTRIES } from '../../server/core/errors.ts';
import { MAX_HEADER_SIZE } from '../../server/http/http-server.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../server/http/json-shape.ts';
import { checkResponse } from '../support/contract-client.ts';
import { longestQuery } from '../support/contract-limits.ts';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createFixtures, createTransaction, type Fixtures } from '../support/transactions-fixtures.ts';

/**
 * Hostile input (issue 9, items 8, 9, 11, 13 and the 405 of item 20): each answer is a 4xx in the
 * documented error shape, the database is unchanged, and the server stays responsive.
 */
let server: TestServer;
let household: TestHousehold;
let fx: Fixtures;
let transactionId: string;
let brokerageId: string;

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerAddress: 0, rateLimitPerCredential: 0 });
  household = await createHousehold(server);
  fx = await createFixtures(server, household.writeKey);
  transactionId = (
    await createTransaction(server, household.writeKey, {
      account_id: fx.accounts.checking.id,
      date: '2026-01-02',
      amount: 10,
      name: 'Existing',
    })
  ).id;
  const brokerage = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name: 'Brokerage', account_type: 'investment' } },
  });
  brokerageId = brokerage.body.data.id;
  await server.drainJobs();
});
afterAll(() => server?.close());

/** Sends a request that must be refused, and checks that it wrote nothing. */
async function refused(method: string, path: string, body: unknown) {
  const before = await databaseSnapshot(server);
  const response = await server.api.request(method, path, { key: household.writeKey, body });
  expect(await databaseSnapshot(server)).toEqual(before);
  return response;
}

const patchTags = (tagIds: unknown[]) =>
  refused('PATCH', `/api/v1/transactions/${transactionId}`, { transaction: { tag_ids: tagIds } });

/** Arrays nested `depth` containers deep in all, the body object included. */
function nestedBody(depth: number): string {
  return `{"transaction":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

/** Writes raw bytes to the server and reads the whole answer (the connection is closed by the server). */
async function rawHttp(text: string): Promise<{ status: number; headers: string; body: unknown }> {
  const { port } = new URL(server.baseUrl);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body: body ? JSON.parse(body) : undefined };
}

describe('arrays (item 8)', () => {
  it('refuses more tag_ids than the contract allows with one entry at the array', async () => {
    const response = await patchTags(Array.from({ length: 101 }, () => randomUUID()));
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { path: '/body/transaction/tag_ids', message: 'tag_ids must NOT have more than 100 items' },
    ]);
  });

  it('caps the error entries at 100 and says how many problems there were', async () => {
    const response = await patchTags(Array.from({ length: 1000 }, (_, index) => index));
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(MAX_ERROR_ENTRIES);
    expect(response.body.errors_count).toBe(1001); // maxItems, then one wrong type per item
    expect(response.body.message).toMatch(/; and 901 more problems$/);
    expect(JSON.stringify(response.body).length).toBeLessThan(20_000);
  });

  it('refuses 125,000 items (a stack overflow in validation before) with a short 422', async () => {
    const response = await patchTags(Array.from({ length: 125_000 }, (_, index) => index));
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      {
        path: '/body/transaction/tag_ids',
        message: 'an array in the body may have at most 1000 items, this one has 125000',
      },
    ]);
  });

  it('refuses 100,000 UUIDs while answering other requests', async () => {
    const flood = patchTags(Array.from({ length: 100_000 }, () => randomUUID()));
    const contract = fetch(`${server.baseUrl}/api/v1/openapi.json`);
    const [response, served] = await Promise.all([flood, contract]);
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      {
        path: '/body/transaction/tag_ids',
        message: 'an array in the body may have at most 1000 items, this one has 100000',
      },
    ]);
    expect(served.status).toBe(200);
  });
});

describe('stray members (issue 28, item 8)', () => {
  it('lists stray members within the bound, each at its pointer, 100 at most', async () => {
    const stray = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`stray_${index}`, index]));
    const response = await refused('POST', '/api/v1/transactions', { transaction: stray });
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(MAX_ERROR_ENTRIES);
    expect(response.body.errors).toContainEqual({
      path: '/body/transaction/stray_0',
      message: 'stray_0 is not a known field',
    });
  });

  it(`refuses a body of more than ${MAX_JSON_VALUES} members and items in all with one short 422`, async () => {
    // Spread over items of a list, so that no single object or array is beyond its own bound.
    const rates = Array.from({ length: 1000 }, (_, item) =>
      Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`stray_${item}_${index}`, index])),
    );
    const response = await refused('POST', '/api/v1/exchange_rates', { exchange_rates: rates });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { path: '/body', message: `the body may hold at most ${MAX_JSON_VALUES} members and items in all` },
    ]);
  });
});

describe('nesting (item 9)', () => {
  it(`takes a body nested ${MAX_JSON_DEPTH} levels to ordinary validation`, async () => {
    const response = await refused('POST', '/api/v1/transactions', nestedBody(MAX_JSON_DEPTH));
    expect(response.status).toBe(422);
    expect(response.body.errors).toContainEqual({
      path: '/body/transaction',
      message: 'transaction must be of type object',
    });
  });

  for (const depth of [MAX_JSON_DEPTH + 1, 1840, 100_000]) {
    it(`refuses a body nested ${depth} levels with 422 before walking it`, async () => {
      const response = await refused('POST', '/api/v1/transactions', nestedBody(depth));
      expect(response.status).toBe(422);
      expect(response.body.error).toBe('validation_failed');
      expect(response.body.errors).toEqual([
        {
          path: `/body/transaction${'/0'.repeat(MAX_JSON_DEPTH - 1)}`,
          message: `body is nested more than ${MAX_JSON_DEPTH} levels deep`,
        },
      ]);
    });
  }

  it('refuses deep objects in a field the contract does not know', async () => {
    const depth = 10_000;
    const response = await refused('POST', '/api/v1/tags', `{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`);
    expect(response.status).toBe(422);
    expect(response.body.errors[0].message).toBe(`body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  });
});

describe('string lengths (item 11)', () => {
  const valid = (overrides: Record<string, unknown>) => ({
    transaction: {
      account_id: fx.accounts.checking.id,
      date: '2026-01-03',
      amount: 1,
      name: 'Bounded',
      ...overrides,
    },
  });

  it('stores a name of 255 characters and notes of 10,000', async () => {
    const response = await server.api.call('createTransaction', {
      key: household.writeKey,
      body: valid({ name: 'n'.repeat(255), notes: 'x'.repeat(10_000) }),
    });
    expect(response.status).toBe(201);
  });

  const tooLong: [string, string, string, unknown, string][] = [
    ['a 1 MB transaction name', 'POST', '/api/v1/transactions', 'name', 'n'.repeat(1_000_000)],
    ['a transaction name of 256', 'POST', '/api/v1/transactions', 'name', 'n'.repeat(256)],
    ['a description of 256', 'POST', '/api/v1/transactions', 'description', 'd'.repeat(256)],
    ['notes of 5 MiB', 'POST', '/api/v1/transactions', 'notes', 'x'.repeat(5 * 1024 * 1024)],
  ];
  for (const [label, method, path, field, value] of tooLong) {
    it(`refuses ${label} at its pointer`, async () => {
      const body = valid({ [field as string]: value });
      const response = await refused(method, path, body);
      expect(response.status).toBe(422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([
        `/body/transaction/${field as string}`,
      ]);
    });
  }

  it('refuses over-long names of accounts, categories, merchants and tags, and a long ticker', async () => {
    const long = 'x'.repeat(256);
    const cases: [string, unknown, string][] = [
      ['/api/v1/accounts', { account: { name: long, account_type: 'depository' } }, '/body/account/name'],
      ['/api/v1/categories', { category: { name: long } }, '/body/category/name'],
      ['/api/v1/merchants', { merchant: { name: long } }, '/body/merchant/name'],
      ['/api/v1/tags', { tag: { name: long } }, '/body/tag/name'],
      [
        '/api/v1/trades',
        {
          trade: {
            account_id: brokerageId,
            date: '2026-01-01',
            type: 'buy',
            qty: 1,
            price: 1,
            ticker: 'T'.repeat(33),
          },
        },
        '/body/trade/ticker',
      ],
    ];
    for (const [path, body, pointer] of cases) {
      const response = await refused('POST', path, body);
      expect(response.status, path).toBe(422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([pointer]);
    }
  });
});

describe('URL and header size (item 13)', () => {
  it('answers the longest query the contract allows', async () => {
    const query = longestQuery('listTransactions');
    expect(query.length).toBeGreaterThan(16 * 1024); // beyond Node's default header limit
    const response = await server.api.call('listTransactions', { key: household.readKey, query });
    expect(response.status).toBe(200);
  });

  it('answers a request line beyond the header limit with 431 in the error shape', async () => {
    const response = await server.api.request('GET', '/api/v1/transactions', {
      key: household.readKey,
      query: `search=${'x'.repeat(MAX_HEADER_SIZE + 1)}`,
    });
    expect(response.status).toBe(431);
    expect(response.body.error).toBe('headers_too_large');
  });

  it('answers malformed HTTP with 400 in the error shape', async () => {
    const response = await rawHttp('GET /api/v1/transactions HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n');
    expect(response.status).toBe(400);
    expect((response.body as { error: string }).error).toBe('bad_request');
    checkResponse('listTransactions', 400, response.body);
  });
});

describe('methods a path does not define (item 20)', () => {
  for (const method of ['TRACE', 'PUT']) {
    it(`answers ${method} on a known path with 405 in the error shape`, async () => {
      const response = await rawHttp(
        `${method} /api/v1/transactions HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${household.writeKey}\r\nConnection: close\r\n\r\n`,
      );
      expect(response.status).toBe(405);
      expect(response.headers).toMatch(/\r\nAllow: [^\r]*\bPOST\b/i);
      expect((response.body as { error: string }).error).toBe('method_not_allowed');
      checkResponse('listTransactions', 405, response.body);
    });
  }

  it('answers TRACE on an unknown path with 404', async () => {
    const response = await rawHttp('TRACE /api/v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(404);
  });

  it('answers CONNECT with 405 in the error shape instead of dropping the connection', async () => {
    const response = await rawHttp('CONNECT /api/v1/transactions HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(response.status).toBe(405);
    checkResponse('listTransactions', 405, response.body);
  });
});
