import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
/** A shared security (market data, no family), one of the household's own, one of the other family's. */
let shared: string;
let own: string;
let theirs: string;
let brokerage: string;
let theirBrokerage: string;

const post = (key: string, security_prices: unknown[]) =>
  server.api.call('createSecurityPrices', { key, body: { security_prices } });
const list = (key: string, query: Record<string, string> = {}) =>
  server.api.call('listSecurityPrices', { key, query: { per_page: '100', ...query } });
const storedPrices = () =>
  server.query(
    'select security_id, date::text, price::text, currency, family_id from security_prices order by 1, 2, 5',
  );

async function openBrokerage(key: string) {
  const created = await server.api.call('createAccount', {
    key,
    body: { account: { name: `Brokerage ${Math.random()}`, account_type: 'investment' } },
  });
  return created.body.data.id as string;
}
async function buy(key: string, account_id: string, ticker: string) {
  const response = await server.api.call('createTrade', {
    key,
    body: { trade: { account_id, date: '2026-03-02', type: 'buy', qty: 2, price: 50, ticker } },
  });
  expect(response.status).toBe(201);
  return response.body.data.security.id as string;
}

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  [{ id: shared }] = (await server.query(
    `insert into securities (id, ticker, name) values (gen_random_uuid(), 'VTI', 'Vanguard Total Stock Market ETF')
     returning id`,
  )) as [{ id: string }];
  brokerage = await openBrokerage(household.writeKey);
  theirBrokerage = await openBrokerage(other.writeKey);
  expect(await buy(household.writeKey, brokerage, 'VTI')).toBe(shared);
  expect(await buy(other.writeKey, theirBrokerage, 'VTI')).toBe(shared);
  own = await buy(household.writeKey, brokerage, 'OWNCO');
  theirs = await buy(other.writeKey, theirBrokerage, 'THEIRCO');
  await server.query(`insert into security_prices (security_id, date, price, currency) values ($1, '2026-03-01', 290, 'USD')`, [shared]); // prettier-ignore
  await server.drainJobs();
});
afterAll(() => server?.close());

describe('createSecurityPrices and listSecurityPrices', () => {
  it('creates by id or ticker (any case), then replaces, counting each; lists own and shared prices', async () => {
    const first = await post(household.writeKey, [
      { security_id: shared, date: '2026-03-03', price: 301.25, currency: 'USD' },
      { ticker: 'ownco', date: '2026-03-03', price: '12.3456', currency: 'USD' },
      { ticker: ' OwnCo ', date: '2026-03-04', price: 1500, currency: 'JPY' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { created: 3, updated: 0 } });
    const second = await post(household.writeKey, [
      { security_id: own, date: '2026-03-03', price: '12.5', currency: 'USD' },
      { ticker: 'VTI', date: '2026-03-05', price: 305, currency: 'USD' },
    ]);
    expect(second.body).toEqual({ data: { created: 1, updated: 1 } });

    const listed = await list(household.readKey);
    expect(listed.status).toBe(200);
    const rows = listed.body.data.map((p: Record<string, any>) => [p.date, p.security.ticker, p.price, p.price_cents, p.currency, p.shared]); // prettier-ignore
    expect(rows).toEqual([
      ['2026-03-05', 'VTI', '$305.00', 30500, 'USD', false],
      ['2026-03-04', 'OWNCO', '¥1,500', 1500, 'JPY', false],
      ['2026-03-03', 'OWNCO', '$12.50', 1250, 'USD', false],
      ['2026-03-03', 'VTI', '$301.25', 30125, 'USD', false],
      ['2026-03-01', 'VTI', '$290.00', 29000, 'USD', true],
    ]);
    expect(listed.body.data[0].security).toEqual({
      id: shared,
      ticker: 'VTI',
      name: 'Vanguard Total Stock Market ETF',
    });
    // Four places are kept exactly; the display rounds to the currency's minor unit.
    const [kept] = await server.query<{ price: string }>(
      `select price::text from security_prices where security_id = $1 and date = '2026-03-03'`,
      [own],
    );
    expect(kept!.price).toBe('12.5000');

    const filtered = await list(household.readKey, { security_id: shared, start_date: '2026-03-02', end_date: '2026-03-05' }); // prettier-ignore
    expect(filtered.body.data.map((p: { date: string }) => p.date)).toEqual(['2026-03-05', '2026-03-03']);
  });

  it('writes the family a price of its own beside shared market data, which stays as it is', async () => {
    const response = await post(household.writeKey, [{ security_id: shared, date: '2026-03-01', price: 291, currency: 'USD' }]); // prettier-ignore
    expect(response.body).toEqual({ data: { created: 1, updated: 0 } });
    const day = await list(household.readKey, { security_id: shared, start_date: '2026-03-01', end_date: '2026-03-01' }); // prettier-ignore
    expect(day.body.data.map((p: { price: string; shared: boolean }) => [p.price, p.shared])).toEqual([
      ['$290.00', true],
      ['$291.00', false],
    ]);
  });

  it('answers 422 Security not found for another family`s security or an unknown ticker, writing nothing', async () => {
    const before = await storedPrices();
    for (const [item, path] of [
      [{ security_id: theirs }, '/body/security_prices/1/security_id'],
      [{ ticker: 'THEIRCO' }, '/body/security_prices/1/ticker'],
      [{ ticker: 'NOPE' }, '/body/security_prices/1/ticker'],
      [{ security_id: crypto.randomUUID() }, '/body/security_prices/1/security_id'],
    ] as const) {
      const response = await post(household.writeKey, [
        { security_id: own, date: '2026-04-01', price: 1, currency: 'USD' },
        { ...item, date: '2026-04-01', price: 1, currency: 'USD' },
      ]);
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([{ path, message: 'Security not found' }]);
    }
    expect(await storedPrices()).toEqual(before);
  });

  it('takes security_id when both it and a ticker are sent, as a trade does', async () => {
    const response = await post(household.writeKey, [
      { security_id: own, ticker: 'VTI', date: '2026-04-10', price: 7, currency: 'USD' },
    ]);
    expect(response.body).toEqual({ data: { created: 1, updated: 0 } });
    const listed = await list(household.readKey, { start_date: '2026-04-10', end_date: '2026-04-10' });
    expect(listed.body.data.map((p: { security: { id: string } }) => p.security.id)).toEqual([own]);
  });

  it('refuses every bad item at its pointer, writing nothing', async () => {
    const before = await storedPrices();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ price: 0 }, '/price', 'price must be greater than 0'],
      [{ price: '-1' }, '/price', 'price must be greater than 0'],
      [{ price: 1000000000.01 }, '/price', 'price must be at most 1000000000'],
      [{ price: '1000000000.0001' }, '/price', 'price must be at most 1000000000'],
      [{ price: '1.00001' }, '/price', 'price must have at most 4 decimal places'],
      [{ price: 'cheap' }, '/price', 'price must be a number'],
      [{ currency: 'ABC' }, '/currency', ''],
      [{ date: '2026-13-01' }, '/date', ''],
      [{ security_id: undefined }, '', 'security_id or ticker is required'],
    ];
    for (const [change, pointer, message] of cases) {
      const item = { security_id: shared, date: '2026-04-02', price: 1, currency: 'USD', ...change };
      const response = await post(household.writeKey, [item]);
      expect(response.status, JSON.stringify(change)).toBe(422);
      const entry = response.body.errors.find((error: { path: string }) => error.path.startsWith(`/body/security_prices/0${pointer}`)); // prettier-ignore
      expect(entry, JSON.stringify(response.body.errors)).toBeDefined();
      expect(entry.message).toContain(message);
    }
    const tooMany = Array.from({ length: 1001 }, () => ({ security_id: shared, date: '2026-04-02', price: 1, currency: 'USD' })); // prettier-ignore
    expect((await post(household.writeKey, tooMany)).status).toBe(422);
    expect(await storedPrices()).toEqual(before);
  });

  it('leaves one row when 20 requests post one security and date at once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(household.writeKey, [{ security_id: own, date: '2026-05-01', price: 10 + i, currency: 'USD' }]),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(responses.filter((response) => response.body.data.created === 1)).toHaveLength(1);
    const rows = await server.query(`select 1 from security_prices where security_id = $1 and date = '2026-05-01'`, [own]); // prettier-ignore
    expect(rows).toHaveLength(1);
  });
});

describe('family scope and the accounts prices move', () => {
  it('never shows or changes another family`s prices; marks and queues only the poster`s accounts', async () => {
    await server.drainJobs();
    await server.query('update accounts set balances_stale_from = null');
    const response = await post(other.writeKey, [
      { ticker: 'VTI', date: '2026-03-20', price: 999, currency: 'USD' },
      { ticker: 'VTI', date: '2026-03-10', price: 998, currency: 'USD' },
    ]);
    expect(response.body).toEqual({ data: { created: 2, updated: 0 } });
    const mine = await list(household.readKey, { start_date: '2026-03-10', end_date: '2026-03-20' });
    expect(mine.body.data).toEqual([]);
    const seen = await list(other.readKey);
    expect(
      seen.body.data.map((p: { date: string; price: string; shared: boolean }) => [p.date, p.price, p.shared]),
    ).toEqual([
      ['2026-03-20', '$999.00', false],
      ['2026-03-10', '$998.00', false],
      ['2026-03-01', '$290.00', true],
    ]);
    const marks = await server.query<{ id: string; stale: string | null }>(
      'select id, balances_stale_from::text as stale from accounts where id = any($1)',
      [[brokerage, theirBrokerage]],
    );
    expect(Object.fromEntries(marks.map((mark) => [mark.id, mark.stale]))).toEqual({
      [brokerage]: null,
      [theirBrokerage]: '2026-03-10',
    });
    const jobs = await server.query<{ key: string }>('select key from graphile_worker.jobs where key = any($1)', [
      [brokerage, theirBrokerage].map((id) => `account_sync:${id}`),
    ]);
    expect(jobs).toEqual([{ key: `account_sync:${theirBrokerage}` }]);
  });

  it('values each family`s holdings at the prices it sees: its own over shared ones, never another family`s', async () => {
    await server.drainJobs();
    const [now] = await server.query<{ today: string }>("select to_char(current_date, 'YYYY-MM-DD') as today");
    const today = now!.today;
    const priceOn = async (key: string) => {
      const listed = await server.api.call('listHoldings', { key, query: { security_id: shared, date: today } });
      return listed.body.data.map((holding: { price: string }) => holding.price);
    };
    // Ours: our own 2026-03-05 price is our latest; theirs: their own of 2026-03-20.
    expect(await priceOn(household.readKey)).toEqual(['$305.00']);
    expect(await priceOn(other.readKey)).toEqual(['$999.00']);
  });
});
