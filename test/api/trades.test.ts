import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let brokerage: string;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  brokerage = await openAccount(household.writeKey, 'investment');
});
afterAll(() => server?.close());

async function openAccount(key: string, account_type: string, subtype?: string): Promise<string> {
  const response = await server.api.call('createAccount', {
    key,
    body: { account: { name: `Account ${Math.random()}`, account_type, ...(subtype ? { subtype } : {}) } } as never,
  });
  return response.body.data.id as string;
}
const trade = (body: Record<string, unknown>, key = household.writeKey) =>
  server.api.call('createTrade', {
    key,
    body: { trade: { account_id: brokerage, date: '2024-03-15', ...body } } as never,
  });
const update = (id: string, body: Record<string, unknown>) =>
  server.api.call('updateTrade', { key: household.writeKey, params: { id }, body: { trade: body } as never });

describe('createTrade', () => {
  it('buys with a ticker (creating the security), amount = qty x price + fee', async () => {
    const response = await trade({ type: 'buy', qty: 10, price: '245.4', fee: 0.95, ticker: 'vti' });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'Buy 10 shares of VTI',
      qty: '10',
      price: '$245.40',
      price_cents: 24540,
      amount: '$2,454.95',
      amount_cents: 245495,
      type: 'buy',
      investment_activity_label: 'Buy',
      security: { ticker: 'VTI' },
      account: { id: brokerage, account_type: 'investment' },
    });
    const again = await trade({ type: 'sell', qty: '2.5', price: 250, ticker: 'VTI' });
    expect(again.body.data).toMatchObject({ name: 'Sell 2.5 shares of VTI', type: 'sell', amount_cents: 62500 });
    expect(again.body.data.security.id).toBe(response.body.data.security.id);
    const [entry] = await server.query<{ amount: string }>('select amount::text from entries where id = $1', [
      again.body.data.id,
    ]);
    expect(entry!.amount).toBe('-625.0000');
  });

  it('takes trades on investment accounts and crypto exchange accounts only (rule 1)', async () => {
    const exchange = await openAccount(household.writeKey, 'crypto', 'exchange');
    expect((await trade({ account_id: exchange, type: 'buy', qty: 1, price: 1, ticker: 'BTC' })).status).toBe(201);
    for (const [type, subtype] of [
      ['depository', undefined],
      ['crypto', 'wallet'],
    ] as const) {
      const account = await openAccount(household.writeKey, type, subtype);
      const response = await trade({ account_id: account, type: 'buy', qty: 1, price: 1, ticker: 'BTC' });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].message).toBe('Account does not support trades');
    }
    const foreign = await openAccount(other.writeKey, 'investment');
    expect((await trade({ account_id: foreign, type: 'buy', qty: 1, price: 1, ticker: 'X' })).status).toBe(404);
  });

  it('answers the seed messages for invalid quantities and prices (rule 7), an unknown type, no security', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ qty: 'ten', price: 1 }, 'qty and price must be valid numbers'],
      [{ qty: 1, price: '1,5' }, 'qty and price must be valid numbers'],
      [{ qty: 0, price: 1 }, 'qty and price must be present and positive'],
      [{ qty: 1, price: -2 }, 'qty and price must be present and positive'],
      [{ price: 1 }, 'qty and price must be present and positive'],
    ];
    for (const [fields, message] of cases) {
      const response = await trade({ type: 'buy', ticker: 'VTI', ...fields });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].message).toBe(message);
    }
    expect((await trade({ type: 'hold', qty: 1, price: 1, ticker: 'VTI' })).status).toBe(422);
    const none = await trade({ type: 'buy', qty: 1, price: 1 });
    expect(none.status).toBe(422);
    expect(none.body.errors[0].message).toBe('security_id or ticker is required');
  });
});

describe('updateTrade (rules 2-5)', () => {
  it('recomputes from the stored price when only qty is sent, keeping the fee and direction', async () => {
    await trade({ type: 'buy', qty: 10, price: 10, ticker: 'ABC' });
    const { body } = await trade({ type: 'sell', qty: 4, price: 10, fee: 1, ticker: 'ABC' });
    const response = await update(body.data.id, { qty: 6 });
    expect(response.body.data).toMatchObject({ qty: '-6', type: 'sell', price_cents: 1000, amount_cents: 5900 });
  });

  it('turns the direction with type or nature, and keeps a custom label', async () => {
    const { body } = await trade({ type: 'buy', qty: 2, price: 50, ticker: 'ABC' });
    const id = body.data.id as string;
    expect((await update(id, { nature: 'inflow' })).body.data).toMatchObject({ type: 'sell', investment_activity_label: 'Sell' }); // prettier-ignore
    expect((await update(id, { type: 'buy', investment_activity_label: 'Contribution' })).body.data).toMatchObject({
      type: 'buy',
      investment_activity_label: 'Contribution',
    });
    expect((await update(id, { price: 60 })).body.data).toMatchObject({
      amount_cents: 12000,
      investment_activity_label: 'Contribution',
    });
    expect((await update(id, { price: 'abc' })).body.errors[0].message).toBe('qty and price must be valid numbers');
  });
});

describe('listTrades, getTrade, deleteTrade', () => {
  it('filters by account and dates, hides disabled and foreign accounts, deletes', async () => {
    const second = await openAccount(household.writeKey, 'investment');
    const early = await trade({ account_id: second, date: '2023-01-05', type: 'buy', qty: 1, price: 1, ticker: 'XYZ' });
    await trade({ account_id: second, date: '2023-06-05', type: 'buy', qty: 1, price: 1, ticker: 'XYZ' });
    const list = (query: Record<string, unknown>, key = household.readKey) =>
      server.api.call('listTrades', { key, query: query as never });
    expect((await list({ account_id: second })).body.meta.total_count).toBe(2);
    expect((await list({ account_ids: [second], end_date: '2023-03-01' })).body.data.map((t: { id: string }) => t.id)).toEqual([early.body.data.id]); // prettier-ignore
    expect((await list({ start_date: '2023-13-01' })).status).toBe(422);
    expect((await list({}, other.readKey)).body.meta.total_count).toBe(0);
    await server.query("update accounts set status = 'disabled' where id = $1", [second]);
    expect((await list({ account_id: second })).body.meta.total_count).toBe(0);
    const hidden = await server.api.call('getTrade', { key: household.readKey, params: { id: early.body.data.id } });
    expect(hidden.status).toBe(404);
    await server.query("update accounts set status = 'active' where id = $1", [second]);
    const deleted = await server.api.call('deleteTrade', { key: household.writeKey, params: { id: early.body.data.id } }); // prettier-ignore
    expect(deleted.body).toEqual({ data: { id: early.body.data.id, deleted: true } });
    expect((await list({ account_id: second })).body.meta.total_count).toBe(1);
  });

  it('moves the cash by the trade amounts and counts the holdings in the balance once synced', async () => {
    const account = await openAccount(household.writeKey, 'investment');
    await trade({ account_id: account, type: 'buy', qty: 3, price: 100, fee: 2, ticker: 'ABC' });
    await trade({ account_id: account, type: 'sell', qty: 1, price: 120, ticker: 'ABC' });
    await server.drainJobs();
    const shown = await server.api.call('getAccount', { key: household.readKey, params: { id: account } });
    // Cash -(302) + 120, and 2 ABC held at the last trade's price 120.
    expect(shown.body.data).toMatchObject({
      balance_cents: 5800,
      cash_balance_cents: -18200,
      holdings_value_cents: 24000,
    });
  });
});
