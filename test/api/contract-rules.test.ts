import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createFixtures, type Fixtures } from '../support/transactions-fixtures.ts';
import type { OperationId } from '../../server/http/contract.ts';

/**
 * Rules the contract now states itself (issue 9, item 20), answered over HTTP with the entries
 * clients already read: the pointer of the missing field and the seed's words.
 */
let server: TestServer;
let household: TestHousehold;
let fx: Fixtures;
let brokerageId: string;
let valuationId: string;
let tradeId: string;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
  fx = await createFixtures(server, household.writeKey);
  const brokerage = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name: 'Brokerage', account_type: 'investment' } },
  });
  brokerageId = brokerage.body.data.id;
  const valuation = await server.api.call('createValuation', {
    key: household.writeKey,
    body: { valuation: { account_id: fx.accounts.checking.id, amount: 100, date: '2026-01-01' } },
  });
  valuationId = valuation.body.data.id;
  const trade = await server.api.call('createTrade', {
    key: household.writeKey,
    body: { trade: { account_id: brokerageId, date: '2026-01-01', type: 'buy', qty: 1, price: 10, ticker: 'VTI' } },
  });
  tradeId = trade.body.data.id;
  await server.drainJobs();
});
afterAll(() => server?.close());

async function refused(operationId: OperationId, body: unknown, params?: Record<string, string>) {
  const before = await databaseSnapshot(server);
  const response = await server.api.call(operationId, { key: household.writeKey, body, params });
  expect(response.status).toBe(422);
  expect(await databaseSnapshot(server)).toEqual(before);
  return response.body.errors as { path: string; message: string }[];
}

describe('valuation amount and date only together (dependentRequired)', () => {
  for (const [sent, missing] of [
    [{ amount: 20 }, 'date'],
    [{ date: '2026-01-05' }, 'amount'],
  ] as const) {
    it(`answers ${Object.keys(sent)[0]} alone at /body/valuation/${missing} with the seed's message`, async () => {
      expect(await refused('updateValuation', { valuation: sent }, { id: valuationId })).toEqual([
        {
          path: `/body/valuation/${missing}`,
          message: 'Both amount and date are required when updating reconciliation',
        },
      ]);
    });
  }
});

describe('name or description, security_id or ticker (anyOf)', () => {
  it('reports a transaction without both as one entry at /body/transaction/name', async () => {
    const errors = await refused('createTransaction', {
      transaction: { account_id: fx.accounts.checking.id, date: '2026-01-02', amount: 1 },
    });
    expect(errors).toEqual([{ path: '/body/transaction/name', message: 'name is required (or description)' }]);
  });

  it("reports a trade without both in the reference service's words", async () => {
    const errors = await refused('createTrade', {
      trade: { account_id: brokerageId, date: '2026-01-02', type: 'buy', qty: 1, price: 1 },
    });
    expect(errors).toEqual([{ path: '/body/trade/security_id', message: 'security_id or ticker is required' }]);
  });
});

describe('currency: the ISO 4217 list of the contract for every write', () => {
  const cases: [OperationId, (currency: string) => unknown, string, Record<string, string>?][] = [
    [
      'createAccount',
      (currency) => ({ account: { name: 'Abroad', account_type: 'depository', currency } }),
      '/body/account/currency',
    ],
    [
      'createTransaction',
      (currency) => ({
        transaction: { account_id: fx.accounts.checking.id, date: '2026-01-02', amount: 1, name: 'x', currency },
      }),
      '/body/transaction/currency',
    ],
    [
      'createTrade',
      (currency) => ({
        trade: { account_id: brokerageId, date: '2026-01-02', type: 'buy', qty: 1, price: 1, ticker: 'VTI', currency },
      }),
      '/body/trade/currency',
    ],
  ];
  for (const [operationId, body, pointer] of cases) {
    it(`${operationId} refuses QQQ at ${pointer}`, async () => {
      const errors = await refused(operationId, body('QQQ'));
      expect(errors.map((error) => error.path)).toEqual([pointer]);
      expect(errors[0]!.message).toMatch(/^currency must be one of the \d+ values listed in the contract/);
    });
  }

  it('updateTrade refuses QQQ too', async () => {
    const errors = await refused('updateTrade', { trade: { currency: 'QQQ' } }, { id: tradeId });
    expect(errors.map((error) => error.path)).toEqual(['/body/trade/currency']);
  });
});
