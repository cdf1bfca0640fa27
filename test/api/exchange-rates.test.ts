import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
});
afterAll(() => server?.close());

const post = (key: string, exchange_rates: unknown[]) =>
  server.api.call('createExchangeRates', { key, body: { exchange_rates } });
const list = (key: string, query: Record<string, string> = {}) => server.api.call('listExchangeRates', { key, query });
const storedRates = async (familyId: string) =>
  server.query<{ from: string; to: string; date: string; rate: string; source: string }>(
    `select from_currency as "from", to_currency as "to", date::text, rate::text, source from exchange_rates
      where family_id = $1 order by date, from_currency, to_currency`,
    [familyId],
  );

describe('createExchangeRates', () => {
  it('creates, then replaces, counting each; rates are read exactly and listed newest first', async () => {
    const first = await post(household.writeKey, [
      { from: 'EUR', to: 'USD', date: '2026-11-02', rate: 1.0876 },
      { from: 'EUR', to: 'JPY', date: '2026-11-02', rate: '161.83' },
      { from: 'USD', to: 'CHF', date: '2026-11-03', rate: '0.000000000001' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { created: 3, updated: 0 } });

    const second = await post(household.writeKey, [
      { from: 'EUR', to: 'USD', date: '2026-11-02', rate: '1.09' },
      { from: 'EUR', to: 'USD', date: '2026-11-04', rate: 1000000000 },
    ]);
    expect(second.body).toEqual({ data: { created: 1, updated: 1 } });

    const listed = await list(household.readKey);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((rate: Record<string, string>) => [rate.date, rate.from, rate.to, rate.rate])).toEqual([
      ['2026-11-04', 'EUR', 'USD', '1000000000'],
      ['2026-11-03', 'USD', 'CHF', '0.000000000001'],
      ['2026-11-02', 'EUR', 'JPY', '161.83'],
      ['2026-11-02', 'EUR', 'USD', '1.09'],
    ]);
    expect(listed.body.data[0]).toMatchObject({ source: 'api' });
    expect(listed.body.meta).toMatchObject({ total_count: 4, total_pages: 1, current_page: 1 });
    // The stored value is the decimal sent, to the last of its twelve places.
    expect((await storedRates(household.familyId)).map((rate) => rate.rate)).toEqual([
      '161.830000000000',
      '1.090000000000',
      '0.000000000001',
      '1000000000.000000000000',
    ]);
  });

  it('takes the last of items naming one pair and date, counting the row once', async () => {
    const response = await post(household.writeKey, [
      { from: 'GBP', to: 'USD', date: '2026-10-01', rate: '1.20' },
      { from: 'GBP', to: 'USD', date: '2026-10-01', rate: '1.30' },
      { from: 'GBP', to: 'USD', date: '2026-10-01', rate: '1.25' },
    ]);
    expect(response.body).toEqual({ data: { created: 1, updated: 0 } });
    const listed = await list(household.readKey, { from: 'GBP', to: 'USD' });
    expect(listed.body.data.map((rate: { rate: string }) => rate.rate)).toEqual(['1.25']);
  });

  it('filters by pair and by an inclusive date range, and pages', async () => {
    await post(
      household.writeKey,
      ['2026-09-01', '2026-09-02', '2026-09-03', '2026-09-04'].map((date, i) => ({
        from: 'CAD',
        to: 'USD',
        date,
        rate: `0.7${i}`,
      })),
    );
    const ranged = await list(household.readKey, {
      from: 'CAD',
      start_date: '2026-09-02',
      end_date: '2026-09-03',
    });
    expect(ranged.body.data.map((rate: { date: string }) => rate.date)).toEqual(['2026-09-03', '2026-09-02']);
    const paged = await list(household.readKey, { to: 'USD', from: 'CAD', per_page: '3', page: '2' });
    expect(paged.body.data.map((rate: { rate: string }) => rate.rate)).toEqual(['0.7']);
    expect(paged.body.meta).toMatchObject({ total_count: 4, total_pages: 2, prev_page: 1, next_page: null });
  });

  it('refuses every bad item at its pointer, writing nothing', async () => {
    const before = await storedRates(household.familyId);
    const cases: [unknown, string, string][] = [
      [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: 0 }, '/body/exchange_rates/0/rate', 'rate must be greater than 0'],
      [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: '-1' }, '/body/exchange_rates/0/rate', 'rate must be greater than 0'],
      [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: 1000000000.5 }, '/body/exchange_rates/0/rate', 'rate must be at most 1000000000'],
      [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: '1000000000.000000000001' }, '/body/exchange_rates/0/rate', 'rate must be at most 1000000000'],
      [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: '1.0000000000001' }, '/body/exchange_rates/0/rate', 'rate must have at most 12 decimal places'],
      [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: 'one' }, '/body/exchange_rates/0/rate', 'rate must be a number'],
      [{ from: 'EUR', to: 'EUR', date: '2026-01-05', rate: 1 }, '/body/exchange_rates/0/to', 'from and to must be different currencies'],
      [{ from: 'XYZ', to: 'USD', date: '2026-01-05', rate: 1 }, '/body/exchange_rates/0/from', ''],
      [{ from: 'EUR', to: 'usd', date: '2026-01-05', rate: 1 }, '/body/exchange_rates/0/to', ''],
      [{ from: 'EUR', to: 'USD', date: '2026-02-30', rate: 1 }, '/body/exchange_rates/0/date', ''],
      [{ from: 'EUR', to: 'USD', date: '05/01/2026', rate: 1 }, '/body/exchange_rates/0/date', ''],
      [{ from: 'EUR', to: 'USD', rate: 1 }, '/body/exchange_rates/0/date', 'date is required'],
    ]; // prettier-ignore
    for (const [item, path, message] of cases) {
      // A good item first: the whole body is refused, not just the bad item.
      const response = await post(household.writeKey, [
        { from: 'EUR', to: 'USD', date: '2026-01-04', rate: 1.1 },
        item,
      ]);
      const shifted = path.replace('/exchange_rates/0', '/exchange_rates/1');
      expect(response.status, JSON.stringify(item)).toBe(422);
      expect(response.body.error).toBe('validation_failed');
      const entry = response.body.errors.find((error: { path: string }) => error.path === shifted);
      expect(entry, `${JSON.stringify(item)}: ${JSON.stringify(response.body.errors)}`).toBeDefined();
      expect(entry.message).toContain(message);
    }
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({
      from: 'EUR',
      to: 'USD',
      date: '2026-01-01',
      rate: 1 + i / 1000,
    }));
    expect((await post(household.writeKey, tooMany)).status).toBe(422);
    expect((await post(household.writeKey, [])).status).toBe(422);
    expect(await storedRates(household.familyId)).toEqual(before);
  });

  it('reports each problem of many items at once', async () => {
    const response = await post(household.writeKey, [
      { from: 'EUR', to: 'USD', date: '2026-01-05', rate: '0' },
      { from: 'EUR', to: 'USD', date: '2026-01-06', rate: 1.2 },
      { from: 'CHF', to: 'CHF', date: '2026-01-05', rate: '1.0000000000001' },
    ]);
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { path: '/body/exchange_rates/0/rate', message: 'rate must be greater than 0' },
      { path: '/body/exchange_rates/2/to', message: 'from and to must be different currencies' },
      { path: '/body/exchange_rates/2/rate', message: 'rate must have at most 12 decimal places' },
    ]);
  });

  it('leaves one row when 20 requests post one pair and date at once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(household.writeKey, [
          { from: 'SEK', to: 'USD', date: '2026-08-01', rate: `0.09${i}` },
          { from: 'NOK', to: 'USD', date: '2026-08-01', rate: `0.08${i}` },
        ]),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const created = responses.reduce((sum, response) => sum + response.body.data.created, 0);
    const updated = responses.reduce((sum, response) => sum + response.body.data.updated, 0);
    expect({ created, updated }).toEqual({ created: 2, updated: 38 });
    const rows = await server.query<{ count: number }>(
      `select count(*)::int from exchange_rates where family_id = $1 and date = '2026-08-01'`,
      [household.familyId],
    );
    expect(rows[0]!.count).toBe(2);
  });

  it('answers 403 to a read key', async () => {
    const response = await post(household.readKey, [{ from: 'EUR', to: 'USD', date: '2026-01-05', rate: 1 }]);
    expect(response.status).toBe(403);
  });
});

describe('family scope', () => {
  it('keeps each family to its own rates: never listed nor changed by another', async () => {
    await post(household.writeKey, [{ from: 'EUR', to: 'AUD', date: '2026-07-01', rate: '1.65' }]);
    // The same pair and date is a row of the other family's own, not a replacement of this one.
    const theirs = await post(other.writeKey, [{ from: 'EUR', to: 'AUD', date: '2026-07-01', rate: '9.99' }]);
    expect(theirs.body).toEqual({ data: { created: 1, updated: 0 } });
    const mine = await list(household.readKey, { from: 'EUR', to: 'AUD' });
    expect(mine.body.data.map((rate: { rate: string }) => rate.rate)).toEqual(['1.65']);
    const seen = await list(other.readKey);
    expect(seen.body.data.map((rate: { rate: string }) => rate.rate)).toEqual(['9.99']);
  });
});

describe('accounts the rates move', () => {
  it('marks an account holding money in either currency of the pair, from the rate date, and queues its sync', async () => {
    const account = async (key: string, name: string) => {
      const created = await server.api.call('createAccount', {
        key,
        body: { account: { name, account_type: 'depository', currency: 'USD' } },
      });
      return created.body.data.id as string;
    };
    const travel = await account(household.writeKey, 'Travel card');
    const plain = await account(household.writeKey, 'Plain checking');
    const foreign = await account(other.writeKey, 'Their travel card');
    for (const [key, id] of [
      [household.writeKey, travel],
      [other.writeKey, foreign],
    ] as const) {
      const spent = await server.api.call('createTransaction', {
        key,
        body: { transaction: { account_id: id, date: '2026-06-10', amount: 40, name: 'Museum', currency: 'NZD' } },
      });
      expect(spent.status).toBe(201);
    }
    await server.api.call('createTransaction', {
      key: household.writeKey,
      body: { transaction: { account_id: plain, date: '2026-06-10', amount: 12, name: 'Lunch' } },
    });
    await server.drainJobs();
    // What the sync leaves behind is being rewritten elsewhere: start from clean marks.
    await server.query('update accounts set balances_stale_from = null');

    const response = await post(household.writeKey, [
      { from: 'NZD', to: 'USD', date: '2026-06-12', rate: '0.59' },
      { from: 'USD', to: 'NZD', date: '2026-06-11', rate: '1.7' },
    ]);
    expect(response.status).toBe(200);
    const marks = await server.query<{ id: string; stale: string | null }>(
      'select id, balances_stale_from::text as stale from accounts where id = any($1)',
      [[travel, plain, foreign]],
    );
    expect(Object.fromEntries(marks.map((mark) => [mark.id, mark.stale]))).toEqual({
      [travel]: '2026-06-11',
      [plain]: null,
      [foreign]: null,
    });
    const jobs = await server.query<{ key: string; task: string }>(
      'select key, task_identifier as task from graphile_worker.jobs where key = any($1)',
      [[travel, plain, foreign].map((id) => `account_sync:${id}`)],
    );
    expect(jobs).toEqual([{ key: `account_sync:${travel}`, task: 'account_sync' }]);
  });
});
