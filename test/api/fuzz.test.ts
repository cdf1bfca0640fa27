import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSource } from '../../server/demo/random-source.ts';
import { fuzzOperations } from '../contract-fuzz/contract-operations.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createFixtures, createTransaction } from '../support/transactions-fixtures.ts';

/**
 * Random, mostly malformed requests to every implemented operation: whatever arrives, the answer
 * is documented by the contract (the client checks it) and never a 5xx.
 */
const operations = fuzzOperations.map((operation) => ({
  ...operation,
  queryNames: operation.query.map((parameter) => parameter.name),
}));

const random = randomSource(7);
const JUNK = [
  '',
  ' ',
  '0',
  '-1',
  '1e400',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '2024-02-30',
  '0000-01-01',
  '9999-12-31',
  'x'.repeat(300),
  '%',
  '_',
  "'; drop table entries; --",
  '\u202e\u0301',
  '😀',
  '\\',
  '?',
  '1.5',
  '100',
  '101',
  '00000000-0000-0000-0000-000000000000',
  'income',
  'expense',
];
const pick = <T>(items: readonly T[]) => random.pick(items);

function junkJson(depth = 0): unknown {
  const roll = random.next();
  if (depth > 2 || roll < 0.35) return pick([null, true, 0, -1, 1e308, 12.3456789, ...JUNK]);
  if (roll < 0.6) return Array.from({ length: Math.floor(random.between(0, 4)) }, () => junkJson(depth + 1));
  const object: Record<string, unknown> = {};
  const keys = [
    'transaction',
    'account',
    'category',
    'merchant',
    'tag',
    'name',
    'amount',
    'date',
    'account_id',
    'tag_ids',
    'nature',
    'color',
    'parent_id',
    'currency',
    'notes',
    'balance',
    'account_type',
  ];
  for (let i = 0; i < random.between(0, 5); i++) object[pick(keys)] = junkJson(depth + 1);
  return object;
}

let server: TestServer;
let household: TestHousehold;
const ids: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerAddress: 0, rateLimitPerCredential: 0 });
  household = await createHousehold(server);
  const fx = await createFixtures(server, household.writeKey);
  const transaction = await createTransaction(server, household.writeKey, {
    account_id: fx.accounts.checking.id,
    date: '2026-01-02',
    amount: 10,
    name: 'Existing',
  });
  ids.push(
    transaction.id,
    fx.tags.work.id,
    fx.accounts.checking.id,
    fx.categories.groceries.id,
    fx.merchants.airline.id,
  );
});
afterAll(() => server?.close());

describe.each(operations)('$id under random input', (operation) => {
  it('answers every request as the contract documents, never with a 5xx', async () => {
    for (let round = 0; round < 25; round++) {
      const path = operation.path.replace(/\{\w+\}/, () =>
        random.chance(0.6) ? pick(ids) : encodeURIComponent(pick(JUNK.filter(Boolean))),
      );
      const query = operation.queryNames
        .filter(() => random.chance(0.4))
        .map((name) => `${random.chance(0.2) ? `${name}[]` : name}=${encodeURIComponent(String(pick(JUNK)))}`)
        .join('&');
      const body =
        operation.method === 'GET' || operation.method === 'DELETE'
          ? undefined
          : random.chance(0.1)
            ? '{"broken": '
            : junkJson();
      const response = await server.api.request(operation.method, path, { key: household.writeKey, query, body });
      expect(
        response.status,
        `${operation.method} ${path}?${query} ${JSON.stringify(body)?.slice(0, 200)}`,
      ).toBeLessThan(500);
    }
  });
});
