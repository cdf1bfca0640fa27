import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../server/http/contract.ts';
import { loadOpenApiDocument } from '../../server/http/openapi-document.ts';
import { checkResponse } from '../support/contract-client.ts';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { AI_STAND_IN, startTestServer, TEST_JSON_LIMIT, type TestServer } from '../support/test-server.ts';
import { createFixtures, createTransaction } from '../support/transactions-fixtures.ts';

/**
 * Every operation that takes a JSON body with a credential, read from the contract: each must
 * answer malformed or misshapen input with a 4xx in the error shape and leave every table as it was.
 */
const document = loadOpenApiDocument();
const writeOperations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item ?? {}).flatMap(([method, operation]) => {
    const op = operation as { operationId?: OperationId; requestBody?: unknown; security?: unknown[] };
    return op.operationId && op.requestBody && op.security?.length !== 0
      ? [{ id: op.operationId, method: method.toUpperCase(), path }]
      : [];
  }),
);

let server: TestServer;
let household: TestHousehold;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // A provider that is never called: bad input must not get as far as queueing a reply.
  server = await startTestServer({ ai: { ...AI_STAND_IN } });
  household = await createHousehold(server, { aiEnabled: true });
  const fixtures = await createFixtures(server, household.writeKey);
  const transaction = await createTransaction(server, household.writeKey, {
    account_id: fixtures.accounts.checking.id,
    date: '2026-01-02',
    amount: 10,
    name: 'Existing',
    tag_ids: [fixtures.tags.work.id],
  });
  const valuation = await server.api.call('createValuation', {
    key: household.writeKey,
    body: { valuation: { account_id: fixtures.accounts.checking.id, amount: 100, date: '2026-01-01' } },
  });
  const brokerage = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name: 'Brokerage', account_type: 'investment' } },
  });
  const trade = await server.api.call('createTrade', {
    key: household.writeKey,
    body: {
      trade: { account_id: brokerage.body.data.id, date: '2026-01-01', type: 'buy', qty: 1, price: 10, ticker: 'VTI' },
    },
  });
  const pendingImport = await server.api.call('createImport', {
    key: household.writeKey,
    body: { raw_file_content: 'date,amount\n2024-01-01,1', account_id: fixtures.accounts.checking.id },
  });
  const chat = await server.api.call('createChat', { key: household.writeKey, body: { title: 'Bad input' } });
  Object.assign(ids, {
    Account: fixtures.accounts.checking.id,
    Category: fixtures.categories.groceries.id,
    Merchant: fixtures.merchants.wholeFoods.id,
    Chat: chat.body.data.id,
    Import: pendingImport.body.data.id,
    Tag: fixtures.tags.work.id,
    Transaction: transaction.id,
    Valuation: valuation.body.data.id,
    Trade: trade.body.data.id,
  });
  // Writes queue account syncs; bad input must queue none, so the count starts from an empty queue.
  await server.drainJobs();
});
afterAll(() => server?.close());

function concretePath(operation: { id: string; path: string }): string {
  return operation.path.replace(/\{(id|chat_id)\}/, (_, name: string) => {
    const resource = name === 'chat_id' ? 'Chat' : operation.id.replace(/^(update|delete)/, '');
    const id = ids[resource];
    if (!id) throw new Error(`no fixture id for ${operation.id}`);
    return id;
  });
}

const cases: [string, string, number, string][] = [
  ['malformed JSON', '{"oops": ', 400, 'bad_request'],
  ['an empty body declared JSON', '', 422, 'validation_failed'],
  ['a JSON array instead of an object', '[]', 422, 'validation_failed'],
  ['a JSON string instead of an object', '"text"', 422, 'validation_failed'],
  ['JSON null', 'null', 422, 'validation_failed'],
  ['an empty object', '{}', 422, 'validation_failed'],
  [
    'the wrapper of the wrong type',
    '{"transaction": 1, "tag": 1, "account": 1, "user": 1, "category": 1, "merchant": 1, "valuation": 1, "trade": 1, "exchange_rates": 1, "security_prices": 1, "transfer": 1}',
    422,
    'validation_failed',
  ],
];

describe.each(writeOperations)('$id ($method $path) with bad input', (operation) => {
  it.each(cases)('answers %s with the documented error and writes nothing', async (_, body, status, code) => {
    const before = await databaseSnapshot(server);
    const response = await server.api.request(operation.method, concretePath(operation), {
      key: household.writeKey,
      body,
    });
    expect(response.status).toBe(status);
    expect(response.body.error).toBe(code);
    expect(response.body.errors.length).toBeGreaterThan(0);
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('answers a body over the JSON limit with 413 and writes nothing', async () => {
    const before = await databaseSnapshot(server);
    const response = await server.api.request(operation.method, concretePath(operation), {
      key: household.writeKey,
      body: JSON.stringify({ padding: 'x'.repeat(TEST_JSON_LIMIT) }),
    });
    expect(response.status).toBe(413);
    expect(response.body.error).toBe('payload_too_large');
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('names an unknown member of the body at its pointer and writes nothing', async () => {
    const before = await databaseSnapshot(server);
    const response = await server.api.request(operation.method, concretePath(operation), {
      key: household.writeKey,
      body: { stray_member: 1 },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toContainEqual({
      path: '/body/stray_member',
      message: 'stray_member is not a known field',
    });
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it.each([
    ['as text/plain', 'text/plain'],
    ['without a Content-Type', undefined],
  ])('answers a JSON body sent %s with 415 naming the header', async (_, contentType) => {
    const before = await databaseSnapshot(server);
    const response = await sendBytes(operation, contentType, '{}');
    expect(response.status).toBe(415);
    expect(response.body).toEqual({
      error: 'unsupported_media_type',
      message: `Content-Type must be application/json (got ${contentType ?? 'none'})`,
      errors: [
        {
          message: `Content-Type must be application/json (got ${contentType ?? 'none'})`,
          path: '/header/content-type',
        },
      ],
    });
    expect(await databaseSnapshot(server)).toEqual(before);
  });
});

/** A body as bytes, so that fetch adds no Content-Type of its own; the answer is checked against the contract. */
async function sendBytes(
  operation: { id: string; method: string; path: string },
  contentType: string | undefined,
  text: string,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.baseUrl}${concretePath(operation)}`, {
    method: operation.method,
    headers: { 'x-api-key': household.writeKey, ...(contentType && { 'content-type': contentType }) },
    body: new TextEncoder().encode(text),
  });
  const body = await response.json();
  checkResponse(operation.id as OperationId, response.status, body);
  return { status: response.status, body };
}

it('covers every implemented write operation', () => {
  expect(writeOperations.map((operation) => operation.id).sort()).toEqual(
    [
      'createAccount',
      'createCategory',
      'createChat',
      'createChatMessage',
      'createExchangeRates',
      'createImport',
      'createMerchant',
      'createSecurityPrices',
      'createTag',
      'createTrade',
      'createTransaction',
      'createTransfer',
      'createValuation',
      'deleteCurrentUser',
      'updateAccount',
      'updateCategory',
      'updateChat',
      'updateCurrentUser',
      'updateImport',
      'updateMerchant',
      'updateTag',
      'updateTrade',
      'updateTransaction',
      'updateValuation',
    ].sort(),
  );
});

/** The sign-in operations that take a body: no credential, so no fixture either. */
const signInOperations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item ?? {}).flatMap(([method, operation]) => {
    const op = operation as { operationId?: OperationId; requestBody?: unknown; security?: unknown[] };
    return op.operationId && op.requestBody && op.security?.length === 0
      ? [{ id: op.operationId, method: method.toUpperCase(), path }]
      : [];
  }),
);

describe.each(signInOperations)('$id ($method $path) with bad input', (operation) => {
  const signInCases: [string, string, number, string][] = [
    ...cases.slice(0, 4),
    [
      'members of the wrong type',
      '{"email": 1, "password": [], "refresh_token": 2, "code": {}, "linking_code": 3, "device": "phone"}',
      422,
      'validation_failed',
    ],
    [
      'a member beyond its maxLength',
      `{"linking_code": "${'x'.repeat(513)}", "code": "${'x'.repeat(513)}", "refresh_token": "${'x'.repeat(513)}", "email": "${'x'.repeat(255)}", "password": "p"}`,
      422,
      'validation_failed',
    ],
  ];
  it.each(signInCases)('answers %s with the documented error and writes nothing', async (_, body, status, code) => {
    const before = await databaseSnapshot(server);
    const response = await server.api.request(operation.method, operation.path, { body });
    expect(response.status).toBe(status);
    expect(response.body.error).toBe(code);
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('answers a body sent as text/plain with 415 and writes nothing', async () => {
    const before = await databaseSnapshot(server);
    const response = await sendBytes(operation, 'text/plain', '{"email": "a@example.com", "password": "p"}');
    expect(response.status).toBe(415);
    expect(response.body.errors).toEqual([expect.objectContaining({ path: '/header/content-type' })]);
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('answers a body over the JSON limit with 413 and writes nothing', async () => {
    const before = await databaseSnapshot(server);
    const response = await server.api.request(operation.method, operation.path, {
      body: JSON.stringify({ padding: 'x'.repeat(TEST_JSON_LIMIT) }),
    });
    expect(response.status).toBe(413);
    expect(await databaseSnapshot(server)).toEqual(before);
  });
});

it('covers every sign-in operation with a body', () => {
  expect(signInOperations.map((operation) => operation.id).sort()).toEqual(
    ['createSsoAccount', 'exchangeSsoCode', 'linkSsoAccount', 'login', 'refreshToken'].sort(),
  );
});

describe('names the contract does not define', () => {
  const unknown = (response: { body: { errors: { path: string; message: string }[] } }) => response.body.errors;

  it('names each unknown member, nested ones too, with the known name meant', async () => {
    const response = await server.api.call('createTag', {
      key: household.writeKey,
      body: { tag: { name: 'Holiday', colour: '#112233', nmae: 'x', wholly_unrelated: true }, tga: {} },
    });
    expect(response.status).toBe(422);
    expect(unknown(response)).toEqual(
      expect.arrayContaining([
        { path: '/body/tag/colour', message: 'colour is not a known field; did you mean color?' },
        { path: '/body/tag/nmae', message: 'nmae is not a known field; did you mean name?' },
        { path: '/body/tag/wholly_unrelated', message: 'wholly_unrelated is not a known field' },
        { path: '/body/tga', message: 'tga is not a known field; did you mean tag?' },
      ]),
    );
  });

  it('checks items of a list and both shapes of a transfer alike', async () => {
    const rates = await server.api.call('createExchangeRates', {
      key: household.writeKey,
      body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: '2024-01-02', rate: 1.1, rte: 1 }] },
    });
    expect(rates.status).toBe(422);
    expect(unknown(rates)).toContainEqual({
      path: '/body/exchange_rates/0/rte',
      message: 'rte is not a known field; did you mean rate?',
    });
    const transfer = await server.api.call('createTransfer', {
      key: household.writeKey,
      body: { transfer: { outflow_transaction_id: ids.Transaction, inflow_transaction_id: ids.Transaction, amout: 1 } },
    });
    expect(transfer.status).toBe(422);
    expect(unknown(transfer).filter((entry) => entry.path === '/body/transfer/amout')).toEqual([
      { path: '/body/transfer/amout', message: 'amout is not a known field; did you mean amount?' },
    ]);
  });

  it('refuses an unknown member of a sign-in body, inside the device too', async () => {
    const response = await server.api.call('login', {
      body: {
        email: 'nobody@example.com',
        password: 'secret',
        device: { device_id: 'd', device_name: 'n', device_type: 'ios', os_verison: '17' },
      },
    });
    expect(response.status).toBe(422);
    expect(unknown(response)).toEqual([
      { path: '/body/device/os_verison', message: 'os_verison is not a known field; did you mean os_version?' },
    ]);
  });

  it('suggests the query parameter meant', async () => {
    const response = await server.api.call('listTransactions', { key: household.readKey, query: 'per_pgae=2' });
    expect(response.status).toBe(422);
    expect(unknown(response)).toEqual([
      { path: '/query/per_pgae', message: 'per_pgae is not a known query parameter; did you mean per_page?' },
    ]);
  });
});

describe('malformed requests', () => {
  it('answers a path id that does not decode with 404', async () => {
    const response = await server.api.request('GET', '/api/v1/transactions/%E0%A4%A', { key: household.readKey });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe('Transaction not found');
  });

  it('answers a query parameter given as an object with 422', async () => {
    const response = await server.api.call('listTransactions', {
      key: household.readKey,
      query: 'page[x]=1&per_page[]=2',
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([
      '/query/page',
      '/query/per_page',
    ]);
  });

  it('reads an empty body declared JSON as no body: required where the contract wants one, ignored elsewhere', async () => {
    const required = await server.api.call('createTag', { key: household.writeKey, body: '' });
    expect(required.status).toBe(422);
    expect(required.body.errors).toEqual([{ message: 'request body is required', path: '/body' }]);
    // Clients that send Content-Type: application/json on every request, a DELETE included.
    const tag = await server.api.call('createTag', { key: household.writeKey, body: { tag: { name: 'Empty body' } } });
    const deleted = await server.api.call('deleteTag', {
      key: household.writeKey,
      params: { id: tag.body.data.id },
      body: '',
    });
    expect(deleted.status).toBe(200);
  });

  it('takes an undecodable search text literally', async () => {
    const response = await server.api.call('listTransactions', { key: household.readKey, query: 'search=%E0%A4%A' });
    expect(response.status).toBe(200);
  });
});
