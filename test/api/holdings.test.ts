import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let brokerage: string;
let today: string;

type Holding = { id: string; date: string; qty: string; price_cents: number; amount_cents: number; avg_cost: string | null; security: { ticker: string } }; // prettier-ignore

async function openBrokerage(key: string): Promise<string> {
  const response = await server.api.call('createAccount', {
    key,
    body: { account: { name: `Brokerage ${Math.random()}`, account_type: 'investment' } },
  });
  return response.body.data.id as string;
}
const trade = (account_id: string, date: string, type: 'buy' | 'sell', qty: number, price: number, ticker: string, key = household.writeKey) =>
  server.api.call('createTrade', { key, body: { trade: { account_id, date, type, qty, price, ticker } } }); // prettier-ignore
const list = async (query: Record<string, unknown>, key = household.readKey) =>
  server.api.call('listHoldings', { key, query: { per_page: 100, ...query } as never });

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  const [now] = await server.query<{ today: string }>("select to_char(current_date, 'YYYY-MM-DD') as today");
  today = now!.today;
  brokerage = await openBrokerage(household.writeKey);
  // ABC: valued at its trade prices. XYZ: has a market price after its first trade.
  await trade(brokerage, '2024-01-10', 'buy', 10, 100, 'ABC');
  await trade(brokerage, '2024-02-10', 'buy', 10, 120, 'ABC');
  await trade(brokerage, '2024-03-10', 'sell', 5, 130, 'ABC');
  await trade(brokerage, '2024-01-10', 'buy', 4, 50, 'XYZ');
  await trade(brokerage, '2024-03-10', 'buy', 4, 70, 'XYZ');
  const [xyz] = await server.query<{ id: string }>("select id from securities where ticker = 'XYZ'");
  await server.query("insert into security_prices values ($1, '2024-02-15', 55, 'USD'), ($1, '2024-04-01', 80, 'USD')", [xyz!.id]); // prettier-ignore
  await server.drainJobs();
});
afterAll(() => server?.close());

describe('holdings maths (hand-computed)', () => {
  it('accumulates quantity, values at the latest trade price, sells at average cost', async () => {
    const rows = (await list({ account_id: brokerage, security_id: undefined })).body.data as Holding[];
    const abc = rows.filter((row) => row.security.ticker === 'ABC');
    expect(abc.map((row) => [row.date, row.qty, row.price_cents, row.amount_cents, row.avg_cost])).toEqual([
      ['2024-01-10', '10', 10000, 100000, '$100.00'],
      ['2024-02-10', '20', 12000, 240000, '$110.00'], // cost 1000 + 1200 over 20 units
      ['2024-03-10', '15', 13000, 195000, '$110.00'], // 5 sold at the average: 1650 over 15
      [today, '15', 13000, 195000, '$110.00'],
    ]);
  });

  it('values with the latest price on or before the date, a market price or a trade price', async () => {
    const rows = (await list({ account_id: brokerage })).body.data as Holding[];
    const xyz = rows.filter((row) => row.security.ticker === 'XYZ');
    expect(xyz.map((row) => [row.date, row.qty, row.price_cents, row.amount_cents, row.avg_cost])).toEqual([
      ['2024-01-10', '4', 5000, 20000, '$50.00'],
      ['2024-03-10', '8', 7000, 56000, '$60.00'], // the trade's 70 that day is newer than the market's 55 of 2024-02-15
      [today, '8', 8000, 64000, '$60.00'],
    ]);
  });

  it('is ordered by date and filtered by date, range and security; 422 on an invalid date', async () => {
    const all = (await list({ account_ids: [brokerage] })).body.data as Holding[];
    expect(all.map((row) => row.date)).toEqual([...all.map((row) => row.date)].sort());
    const onDate = (await list({ date: '2024-03-10' })).body.data as Holding[];
    expect(onDate.map((row) => row.security.ticker).sort()).toEqual(['ABC', 'XYZ']);
    expect((await list({ start_date: '2024-02-01', end_date: '2024-03-31' })).body.meta.total_count).toBe(3);
    const bad = await list({ date: '2024-02-30' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('validation_failed');
  });

  it('keeps ids of unchanged positions when the account syncs again', async () => {
    const before = (await list({ account_id: brokerage, date: '2024-01-10' })).body.data as Holding[];
    await trade(brokerage, '2024-05-01', 'buy', 1, 10, 'QQQ');
    await server.drainJobs();
    const after = (await list({ account_id: brokerage, date: '2024-01-10' })).body.data as Holding[];
    expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
  });
});

describe('holdings visibility', () => {
  it('hides disabled and foreign accounts, also when asked for by id or filter', async () => {
    const [first] = (await list({ account_id: brokerage })).body.data as Holding[];
    expect((await server.api.call('getHolding', { key: household.readKey, params: { id: first!.id } })).status).toBe(
      200,
    );
    expect((await server.api.call('getHolding', { key: other.readKey, params: { id: first!.id } })).status).toBe(404);
    expect((await list({ account_id: brokerage }, other.readKey)).body.meta.total_count).toBe(0);
    await server.query("update accounts set status = 'disabled' where id = $1", [brokerage]);
    try {
      expect((await list({ account_id: brokerage })).body.meta.total_count).toBe(0);
      expect((await server.api.call('getHolding', { key: household.readKey, params: { id: first!.id } })).status).toBe(
        404,
      );
    } finally {
      await server.query("update accounts set status = 'active' where id = $1", [brokerage]);
    }
  });
});
