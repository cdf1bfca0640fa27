import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let today: string;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  today = (await server.query<{ today: string }>("select to_char(current_date, 'YYYY-MM-DD') as today"))[0]!.today;
});
afterAll(() => server?.close());

/** The ISO date `days` days from today (negative: before). */
const daysFromToday = (days: number) => {
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
};

const openAccount = async (
  key: string,
  name: string,
  account: { account_type?: string; currency?: string; balance?: number } = {},
) => {
  const response = await server.api.call('createAccount', {
    key,
    body: { account: { name, account_type: 'depository', ...account } },
  });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
};

const spend = (key: string, transaction: Record<string, unknown>) =>
  server.api.call('createTransaction', {
    key,
    body: { transaction: { name: 'Flow', nature: 'expense', ...transaction } },
  });

/** Stores a rate of the family as a client's import would (the trigger marks the affected accounts), then syncs them. */
async function rate(who: TestHousehold, from: string, to: string, date: string, value: string) {
  await server.query(
    `insert into exchange_rates (family_id, from_currency, to_currency, date, rate, source) values ($1, $2, $3, $4, $5, 'api')
     on conflict (family_id, from_currency, to_currency, date) do update set rate = excluded.rate`,
    [who.familyId, from, to, date, value],
  );
  await server.query(
    `select graphile_worker.add_job('account_sync', json_build_object('account_id', id), job_key := 'account_sync:' || id)
       from accounts where family_id = $1 and balances_stale_from is not null`,
    [who.familyId],
  );
}

const account = async (key: string, id: string) =>
  (await server.api.call('getAccount', { key, params: { id } })).body.data;

const balancesOf = async (key: string, account_id: string, query: Record<string, unknown> = {}) =>
  (await server.api.call('listBalances', { key, query: { account_id, per_page: 100, ...query } })).body;

describe('transactions in other currencies', () => {
  let checking: string;

  beforeAll(async () => {
    checking = await openAccount(household.writeKey, 'Checking', { balance: 1000 });
    await rate(household, 'EUR', 'USD', '2024-03-01', '1.1');
    await rate(household, 'USD', 'JPY', '2024-03-05', '150');
    const writes = [
      { date: '2024-03-01', amount: 100, currency: 'EUR' }, // 1.1: 110.00
      { date: '2024-03-02', amount: 0.15, currency: 'EUR' }, // 0.165 to even: 0.16
      { date: '2024-03-10', amount: 50, currency: 'EUR' }, // the rate of 03-01, 9 days back: 55.00
      { date: '2024-03-20', amount: 10, currency: 'EUR' }, // 03-01 is 19 days back: no rate
      { date: '2024-03-06', amount: 3000, currency: 'JPY' }, // USD>JPY 150 inverted: 20.00
      { date: '2024-03-07', amount: 1000, currency: 'JPY', exchange_rate: 0.0065 }, // its own rate: 6.50
      { date: '2024-03-08', amount: 12.34 }, // the account's currency
    ];
    for (const write of writes)
      expect((await spend(household.writeKey, { account_id: checking, ...write })).status).toBe(201);
    await server.drainJobs();
  });

  it('defaults the currency to the account and shows the rate and the amount in the account currency', async () => {
    const euro = await openAccount(household.writeKey, 'Euro cash', { currency: 'EUR' });
    const created = await spend(household.writeKey, { account_id: euro, date: '2024-03-08', amount: 5 });
    expect(created.body.data).toMatchObject({
      currency: 'EUR',
      amount: '€5.00',
      exchange_rate: null,
      account_amount: { amount: '€5.00', amount_cents: 500, signed_amount_cents: -500, currency: 'EUR' },
    });
    const list = await server.api.call('listTransactions', {
      key: household.readKey,
      query: { account_id: checking, per_page: 100 },
    });
    const shown = list.body.data.map((t: any) => [
      t.date,
      t.currency,
      t.exchange_rate,
      t.account_amount?.amount_cents ?? null,
    ]);
    expect(shown).toEqual([
      ['2024-03-20', 'EUR', null, null],
      ['2024-03-10', 'EUR', '1.1', 5500],
      ['2024-03-08', 'USD', null, 1234],
      ['2024-03-07', 'JPY', '0.0065', 650],
      ['2024-03-06', 'JPY', expect.stringMatching(/^0\.00666666666/), 2000],
      ['2024-03-02', 'EUR', '1.1', 16],
      ['2024-03-01', 'EUR', '1.1', 11000],
    ]);
  });

  it('counts what it can convert, names the missing rate, and completes once the rate is stored', async () => {
    const before = await account(household.readKey, checking);
    // 1000 - 110 - 0.16 - 55 - 20 - 6.50 - 12.34; the 10 EUR of 03-20 has no rate.
    expect(before).toMatchObject({
      balance_cents: 79600,
      balance_complete: false,
      missing_exchange_rates: [{ from: 'EUR', to: 'USD', date: '2024-03-20' }],
    });
    // What the list shows in the account's minor units sums to the balance.
    const list = await server.api.call('listTransactions', { key: household.readKey, query: { account_id: checking, per_page: 100 } }); // prettier-ignore
    const counted = list.body.data.reduce(
      (sum: number, t: any) => sum + (t.account_amount?.signed_amount_cents ?? 0),
      0,
    );
    expect(100000 + counted).toBe(before.balance_cents);

    await rate(household, 'EUR', 'USD', '2024-03-15', '1.2');
    await server.drainJobs();
    expect(await account(household.readKey, checking)).toMatchObject({
      balance_cents: 78400, // and 10 x 1.2
      balance_complete: true,
      missing_exchange_rates: [],
    });
  });

  it('keeps one balance per day, newest first, each with the flows of its day', async () => {
    const { data, meta } = await balancesOf(household.readKey, checking, { start_date: '2024-03-01', end_date: '2024-03-07' }); // prettier-ignore
    expect(meta.total_count).toBe(7);
    expect(data.map((b: any) => [b.date, b.balance_cents, b.cash_balance_cents, b.outflows_cents, b.complete])).toEqual(
      [
        ['2024-03-07', 86334, 86334, 650, true],
        ['2024-03-06', 86984, 86984, 2000, true],
        ['2024-03-05', 88984, 88984, 0, true],
        ['2024-03-04', 88984, 88984, 0, true],
        ['2024-03-03', 88984, 88984, 0, true],
        ['2024-03-02', 88984, 88984, 16, true],
        ['2024-03-01', 89000, 89000, 11000, true],
      ],
    );
    const [latest] = (await balancesOf(household.readKey, checking, { per_page: 1 })).data;
    expect(latest).toMatchObject({ date: today, balance_cents: 78400, currency: 'USD' });
    const shown = await server.api.call('getBalance', { key: household.readKey, params: { id: latest.id } });
    expect(shown.body.data).toEqual(latest);
    expect((await server.api.call('getBalance', { key: other.readKey, params: { id: latest.id } })).status).toBe(404);
    expect((await balancesOf(other.readKey, checking)).data).toEqual([]);
  });
});
