import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import { createTransaction } from '../support/transactions-fixtures.ts';

// Issue 9, items 10, 14 and 18: numbers read exactly, one currency rule, trades as the reference reads them.
let server: TestServer;
let household: TestHousehold;
let brokerage: string;
let checking: string;

beforeAll(async () => {
  ({ server, household } = await startWithTwoHouseholds());
  const open = async (account_type: string) =>
    (
      await server.api.call('createAccount', {
        key: household.writeKey,
        body: { account: { name: `Account ${account_type}`, account_type } } as never,
      })
    ).body.data.id as string;
  brokerage = await open('investment');
  checking = await open('depository');
});
afterAll(() => server?.close());

const trade = (body: Record<string, unknown>) =>
  server.api.call('createTrade', {
    key: household.writeKey,
    body: { trade: { account_id: brokerage, date: '2024-03-15', type: 'buy', ticker: 'EXA', ...body } } as never,
  });
const updateTrade = (id: string, body: Record<string, unknown>) =>
  server.api.call('updateTrade', { key: household.writeKey, params: { id }, body: { trade: body } as never });
const storedQty = async (id: string) =>
  (
    await server.query<{ qty: string }>(
      'select t.qty::text from entries e join trades t on t.id = e.entryable_id where e.id = $1',
      [id],
    )
  )[0]!.qty;

describe('decimals read exactly (item 10)', () => {
  it('stores a quantity written with an exponent as the decimal it names', async () => {
    const tiny = await trade({ qty: 1e-7, price: 1e3 });
    expect(tiny.status).toBe(201);
    expect(tiny.body.data).toMatchObject({
      qty: '0.0000001',
      name: 'Buy 0.0000001 shares of EXA',
      price_cents: 100000,
    });
    expect(await storedQty(tiny.body.data.id)).toBe('0.00000010');
  });

  it('refuses more decimal places than the columns keep instead of rounding to zero', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ qty: 1e-9, price: 1 }, '/body/trade/qty', 'qty must have at most 8 decimal places'],
      [{ qty: '0.000000001', price: 1 }, '/body/trade/qty', 'qty must have at most 8 decimal places'],
      [{ qty: 1, price: '0.00001' }, '/body/trade/price', 'price must have at most 4 decimal places'],
      [{ qty: 1, price: 1, fee: 0.00001 }, '/body/trade/fee', 'fee must have at most 4 decimal places'],
      [{ qty: 1e21, price: 1 }, '/body/trade/qty', 'qty must be at most 1000000000000'],
      [{ qty: 1, price: 1e-7 }, '/body/trade/price', 'price must have at most 4 decimal places'],
    ];
    for (const [body, path, message] of cases) {
      const response = await trade(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.errors).toEqual([{ path, message }]);
    }
  });

  it('refuses an amount of money with more than 4 decimal places on transactions and valuations', async () => {
    const created = await server.api.call('createTransaction', {
      key: household.writeKey,
      body: { transaction: { account_id: checking, date: '2024-03-01', amount: 0.00001, name: 'Dust' } } as never,
    });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual([
      { path: '/body/transaction/amount', message: 'amount must have at most 4 decimal places' },
    ]);
    const valued = await server.api.call('createValuation', {
      key: household.writeKey,
      body: { valuation: { account_id: checking, date: '2024-03-01', amount: 10.00001 } } as never,
    });
    expect(valued.status).toBe(422);
    expect(await server.query('select 1 from entries where account_id = $1', [checking])).toEqual([]);
  });
});

describe('one currency check for every write (item 14)', () => {
  it('refuses a trade in a currency that is not an ISO 4217 code, like a transaction', async () => {
    const response = await trade({ qty: 1, price: 1, currency: 'QQQ' });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].path).toBe('/body/trade/currency');
    const bought = await trade({ qty: 1, price: 1 });
    expect((await updateTrade(bought.body.data.id, { currency: 'QQQ' })).status).toBe(422);
  });
});

describe('trades as clients of the reference service read them (item 18)', () => {
  it('signs quantity and amount of a sale, and renames a generated name when the trade changes', async () => {
    const bought = await trade({ qty: 8, price: 10, ticker: 'BND' });
    expect(bought.body.data).toMatchObject({ qty: '8', amount: '$80.00', name: 'Buy 8 shares of BND' });
    const sold = await trade({ type: 'sell', qty: 3, price: 10, ticker: 'BND', date: '2024-03-16' });
    expect(sold.body.data).toMatchObject({ qty: '-3', amount: '-$30.00', amount_cents: 3000, type: 'sell' });
    const changed = await updateTrade(bought.body.data.id, { qty: 5 });
    expect(changed.body.data).toMatchObject({ qty: '5', name: 'Buy 5 shares of BND' });
    const turned = await updateTrade(sold.body.data.id, { qty: 1 });
    expect(turned.body.data).toMatchObject({ qty: '-1', name: 'Sell 1 shares of BND' });
    await updateTrade(sold.body.data.id, { name: 'Rebalancing' });
    const kept = await updateTrade(sold.body.data.id, { qty: 2, price: 11 });
    expect(kept.body.data).toMatchObject({ qty: '-2', name: 'Rebalancing', amount: '-$22.00' });
  });
});

describe('minor units past 2^53 are written as their digits', () => {
  const open = async (name: string, currency: string) =>
    (
      await server.api.call('createAccount', {
        key: household.writeKey,
        body: { account: { name, account_type: 'depository', balance: 0, currency } },
      })
    ).body.data.id as string;

  it('an amount in thousandths at the amount bound, its display and an Idempotency-Key replay', async () => {
    const account_id = await open('Dinar', 'KWD');
    const send = () =>
      server.api.call('createTransaction', {
        key: household.writeKey,
        headers: { 'Idempotency-Key': 'kwd-at-the-bound' },
        body: { transaction: { account_id, date: '2024-05-01', amount: '9999999999999.999', name: 'Bound' } },
      });
    const created = await send();
    expect(created.status).toBe(201);
    // JSON.parse reads 9999999999999999 as 10000000000000000: the text must hold the figure.
    expect(created.text).toContain('"amount_cents":9999999999999999,');
    expect(created.text).toContain('"signed_amount_cents":-9999999999999999,');
    expect(created.body.data.amount).toBe('KWD\u00a09,999,999,999,999.999');
    const replayed = await send();
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.text).toBe(created.text);
    const shown = await server.api.call('getTransaction', {
      key: household.readKey,
      params: { id: created.body.data.id },
    });
    expect(shown.text).toContain('"amount_cents":9999999999999999,');
  });

  it('a balance and the net worth beyond 2^53 cents', async () => {
    const account_id = await open('Vault', 'USD');
    // Income: 9 x 999999999999999 cents + 999999999999998 = 9999999999999989, odd, so no double holds it.
    for (const amount of [...Array(9).fill('-9999999999999.99'), '-9999999999999.98']) {
      await createTransaction(server, household.writeKey, { account_id, date: '2024-05-02', amount, name: 'In' });
    }
    await server.drainJobs();
    const account = await server.api.call('getAccount', { key: household.readKey, params: { id: account_id } });
    expect(account.body.data.balance).toBe('$99,999,999,999,999.89');
    expect(account.text).toContain('"balance_cents":9999999999999989,');
    const sheet = await server.api.call('getBalanceSheet', { key: household.readKey });
    expect(sheet.status).toBe(200);
    expect(sheet.text).toContain('"total_cents":9999999999999989,');
    // No liabilities: the net worth is the sum of the groups' totals, digit for digit.
    const figures = (name: string) =>
      [...sheet.text.matchAll(new RegExp(`"${name}":(-?\\d+)`, 'g'))].map((match) => BigInt(match[1]!));
    expect(figures('net_worth_cents')).toEqual([figures('total_cents').reduce((sum, cents) => sum + cents)]);
  });
});
