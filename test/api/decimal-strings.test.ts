import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

// Issue 28, item 2: every money, quantity, price and rate input also takes a decimal string, read
// exactly like a JSON number: same bounds, places and messages.
let server: TestServer;
let household: TestHousehold;
let checking: string;
let savings: string;
let brokerage: string;

beforeAll(async () => {
  ({ server, household } = await startWithTwoHouseholds());
  const open = async (name: string, account_type: string, balance?: unknown) => {
    const response = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name, account_type, ...(balance === undefined ? {} : { balance }) } } as never,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  };
  const opened = await open('Checking', 'depository', '1000.50');
  expect(opened).toMatchObject({ balance_cents: 100050 });
  checking = opened.id;
  savings = (await open('Savings', 'depository')).id;
  brokerage = (await open('Brokerage', 'investment')).id;
});
afterAll(() => server?.close());

const call = (operationId: string, body: unknown, params?: Record<string, string>) =>
  server.api.call(operationId as never, { key: household.writeKey, body: body as never, params });
const transaction = (amount: unknown, extra: Record<string, unknown> = {}) =>
  call('createTransaction', {
    transaction: { account_id: checking, date: '2024-05-01', name: 'Lunch', amount, ...extra },
  });
const storedAmount = async (id: string) =>
  (await server.query<{ amount: string }>('select amount::text from entries where id = $1', [id]))[0]!.amount;

describe('decimal strings are read like JSON numbers', () => {
  it('stores a transaction, its update, a valuation, a trade and a transfer sent as strings', async () => {
    const lunch = await transaction('12.50');
    expect(lunch.status, JSON.stringify(lunch.body)).toBe(201);
    expect(lunch.body.data).toMatchObject({ amount: '$12.50', amount_cents: 1250 });
    const refund = await transaction(' -3.2 ');
    expect(refund.body.data).toMatchObject({ amount: '-$3.20', classification: 'income' });
    expect(await storedAmount(refund.body.data.id)).toBe('-3.2000');

    const changed = await call('updateTransaction', { transaction: { amount: '7.25' } }, { id: lunch.body.data.id });
    expect(changed.body.data).toMatchObject({ amount: '$7.25' });

    const valued = await call('createValuation', {
      valuation: { account_id: savings, date: '2024-05-01', amount: '1500.10' },
    });
    expect(valued.status).toBe(201);
    expect(valued.body.data).toMatchObject({ amount_cents: 150010 });
    const revalued = await call(
      'updateValuation',
      { valuation: { amount: '1600', date: '2024-05-02' } },
      { id: valued.body.data.id },
    );
    expect(revalued.body.data).toMatchObject({ amount_cents: 160000 });

    const bought = await call('createTrade', {
      trade: {
        account_id: brokerage,
        date: '2024-05-01',
        type: 'buy',
        ticker: 'STR',
        qty: '2',
        price: '10.5',
        fee: '1.25',
      },
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect(bought.body.data).toMatchObject({ qty: '2', amount: '$22.25', price_cents: 1050 });

    const moved = await call('createTransfer', {
      transfer: { from_account_id: checking, to_account_id: savings, amount: '25.00', date: '2024-05-03' },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(moved.body.data).toMatchObject({ amount_cents: 2500 });
  });

  it('filters by amounts written as strings, compared exactly', async () => {
    const response = await server.api.call('listTransactions', {
      key: household.readKey,
      query: 'account_id=' + checking + '&min_amount=3.2&max_amount=7.25',
    });
    expect(response.status).toBe(200);
    expect(response.body.data.map((item: { amount: string }) => item.amount).sort()).toEqual(['$7.25', '-$3.20']);
  });

  it('refuses a number and its string alike, with the same message, and writes nothing', async () => {
    const before = await databaseSnapshot(server);
    const path = '/body/transaction/amount';
    const cases: [unknown[], string][] = [
      [[1e14, '100000000000000'], 'amount must be at most 10000000000000'],
      [[-1e14, '-100000000000000'], 'amount must be at least -10000000000000'],
      [[12.34567, '12.34567'], 'amount must have at most 4 decimal places'],
      [[true, 'twelve', '1e3', '1,5', ''], 'amount must be a number'],
    ];
    for (const [values, message] of cases) {
      for (const value of values) {
        const response = await transaction(value);
        expect(response.status, JSON.stringify(value)).toBe(422);
        expect(response.body.errors, JSON.stringify(value)).toEqual([{ path, message }]);
      }
    }
    const transfer = (amount: unknown) =>
      call('createTransfer', {
        transfer: { from_account_id: checking, to_account_id: savings, amount, date: '2024-05-03' },
      });
    for (const value of [-5, '-5', 0, '0.00']) {
      // A number also fails the other branch of the oneOf (a link); the amount's entry is the same.
      expect((await transfer(value)).body.errors, String(value)).toContainEqual({
        path: '/body/transfer/amount',
        message: 'amount must be greater than 0',
      });
    }
    const fee = (value: unknown) =>
      call('createTrade', {
        trade: { account_id: brokerage, date: '2024-05-01', type: 'buy', ticker: 'STR', qty: 1, price: 1, fee: value },
      });
    for (const value of [-1, '-1']) {
      expect((await fee(value)).body.errors, String(value)).toEqual([
        { path: '/body/trade/fee', message: 'fee must be at least 0' },
      ]);
    }
    for (const value of ['ten', false]) {
      const response = await call('createTrade', {
        trade: { account_id: brokerage, date: '2024-05-01', type: 'buy', ticker: 'STR', qty: value, price: 1 },
      });
      expect(response.body.errors).toEqual([
        { path: '/body/trade/qty', message: 'qty and price must be valid numbers' },
      ]);
    }
    for (const value of ['-1', 'abc']) {
      const response = await server.api.call('listTransactions', {
        key: household.readKey,
        query: `min_amount=${value}`,
      });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([
        {
          path: '/query/min_amount',
          message: value === 'abc' ? 'min_amount must be a number' : 'min_amount must be at least 0',
        },
      ]);
    }
    expect(await databaseSnapshot(server)).toEqual(before);
  });
});
