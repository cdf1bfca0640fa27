import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

// Issue 9, items 5 and 7: what a trade may do to the positions and balances derived from it.
let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  ({ server, household } = await startWithTwoHouseholds());
});
afterAll(() => server?.close());

async function openBrokerage(): Promise<string> {
  const response = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name: `Brokerage ${Math.random()}`, account_type: 'investment' } } as never,
  });
  return response.body.data.id as string;
}

function trader(account: string) {
  return (date: string, type: 'buy' | 'sell', qty: number | string, price: number | string, ticker = 'POS') =>
    server.api.call('createTrade', {
      key: household.writeKey,
      body: { trade: { account_id: account, date, type, qty, price, ticker } } as never,
    });
}

const holdingsOf = async (account: string) =>
  (
    await server.api.call('listHoldings', {
      key: household.readKey,
      query: { account_id: account, per_page: 100 } as never,
    })
  ).body.data as { date: string; qty: string }[];

describe('selling what is not held (item 7)', () => {
  it('refuses a sale of more units than the account holds on its date, and a sale of a security never bought', async () => {
    const account = await openBrokerage();
    const trade = trader(account);
    const never = await trade('2024-01-02', 'sell', 1, 10);
    expect(never.status).toBe(422);
    expect(never.body.errors).toEqual([{ path: '/body/trade/qty', message: 'Cannot sell more shares than held' }]);
    expect((await trade('2024-01-10', 'buy', 10, 10)).status).toBe(201);
    // Before the purchase's date nothing is held, even though the purchase exists.
    expect((await trade('2024-01-05', 'sell', 1, 10)).status).toBe(422);
    expect((await trade('2024-01-11', 'sell', 10.5, 10)).status).toBe(422);
    expect((await trade('2024-01-11', 'sell', 10, 10)).status).toBe(201);
    await server.drainJobs();
    const qtys = (await holdingsOf(account)).map((row) => Number(row.qty));
    expect(qtys.length).toBeGreaterThan(0);
    expect(qtys.every((qty) => qty >= 0)).toBe(true);
  });

  it('refuses a change or a delete that would make a later sale sell units that are not held', async () => {
    const account = await openBrokerage();
    const trade = trader(account);
    const buy = await trade('2024-02-01', 'buy', 5, 20);
    await trade('2024-03-01', 'sell', 4, 25);
    const update = (body: Record<string, unknown>) =>
      server.api.call('updateTrade', { key: household.writeKey, params: { id: buy.body.data.id }, body: { trade: body } as never }); // prettier-ignore
    expect((await update({ qty: 3 })).body.errors).toEqual([{ path: '/body/trade', message: 'Cannot sell more shares than held' }]); // prettier-ignore
    expect((await update({ date: '2024-03-02' })).status).toBe(422);
    expect((await update({ type: 'sell' })).status).toBe(422);
    const deleted = await server.api.call('deleteTrade', { key: household.writeKey, params: { id: buy.body.data.id } });
    expect(deleted.status).toBe(422);
    expect(deleted.body.errors).toEqual([{ path: '/path/id', message: 'Cannot sell more shares than held' }]);
    // Nothing changed: the purchase is still there as it was.
    const shown = await server.api.call('getTrade', { key: household.readKey, params: { id: buy.body.data.id } });
    expect(shown.body.data).toMatchObject({ qty: '5', date: '2024-02-01', type: 'buy' });
    expect((await update({ qty: 4 })).status).toBe(200);
  });
});

describe('numbers that everything derived from them can hold (item 5)', () => {
  it('refuses the trades that poisoned an account balance, and later writes keep moving it', async () => {
    const account = await openBrokerage();
    const trade = trader(account);
    expect((await trade('2024-01-02', 'buy', 1e11, 1, 'BIG')).status).toBe(201);
    // 10^11 + 1 units valued at 10^7 would be a position of 10^18: beyond what holdings store.
    const poison = await trade('2024-01-03', 'buy', 1, 1e7, 'BIG');
    expect(poison.status).toBe(422);
    expect(poison.body.errors[0].message).toBe('The position would be worth more than 10000000000000 on 2024-01-03');
    await server.drainJobs();
    const before = await server.api.call('getAccount', { key: household.readKey, params: { id: account } });
    // Cash paid 10^11 for holdings worth as much at the trade's price.
    expect(before.body.data).toMatchObject({
      balance_cents: 0,
      cash_balance_cents: -1e13,
      holdings_value_cents: 1e13,
      sync_error: null,
    });
    expect((await trade('2024-01-04', 'sell', 1e10, 1, 'BIG')).status).toBe(201);
    await server.drainJobs();
    const after = await server.api.call('getAccount', { key: household.readKey, params: { id: account } });
    expect(after.body.data).toMatchObject({
      balance_cents: 0,
      cash_balance_cents: -9e12,
      holdings_value_cents: 9e12,
      sync_error: null,
    });
  });

  it('bounds one trade: qty, price and their total', async () => {
    const account = await openBrokerage();
    const trade = trader(account);
    const cases: [number | string, number | string, string, string][] = [
      [1e13, 1, '/body/trade/qty', 'qty must be at most 1000000000000'],
      [1, '1000000000.5', '/body/trade/price', 'price must be at most 1000000000'],
      [1e12, 1e9, '/body/trade', 'The trade total (qty x price + fee) must be at most 10000000000000'],
    ];
    for (const [qty, price, path, message] of cases) {
      const response = await trade('2024-01-02', 'buy', qty, price);
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([{ path, message }]);
    }
    const rows = await server.query('select 1 from entries where account_id = $1', [account]);
    expect(rows).toEqual([]);
  });
});
