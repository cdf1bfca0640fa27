import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { fromUnits, productUnits } from '../../server/core/money/decimal-math.ts';
import { trimDecimal } from '../../server/core/money/money.ts';

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

/** Posts a rate of the family; the accounts it affects sync again by themselves. */
async function rate(who: TestHousehold, from: string, to: string, date: string, value: string) {
  const response = await server.api.call('createExchangeRates', {
    key: who.writeKey,
    body: { exchange_rates: [{ from, to, date, rate: value }] },
  });
  expect(response.status).toBe(200);
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

describe('exact money', () => {
  it('refuses amounts finer than the currency minor unit, and an own rate for the account currency', async () => {
    const checking = await openAccount(household.writeKey, 'Precise');
    const yen = await openAccount(household.writeKey, 'Yen', { currency: 'JPY' });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ account_id: checking, amount: 0.005 }, '/body/transaction/amount', 'amount must have at most 2 decimal places: the minor unit of USD'], // prettier-ignore
      [{ account_id: yen, amount: 10.5 }, '/body/transaction/amount', 'amount must be a whole number: JPY has no minor unit'], // prettier-ignore
      [{ account_id: checking, amount: 1.2345, currency: 'KWD' }, '/body/transaction/amount', 'amount must have at most 3 decimal places: the minor unit of KWD'], // prettier-ignore
      [{ account_id: checking, amount: 1, exchange_rate: 1.1 }, '/body/transaction/exchange_rate', "exchange_rate applies only to a transaction in another currency than its account's (USD)"], // prettier-ignore
    ];
    for (const [body, path, message] of cases) {
      const response = await spend(household.writeKey, { date: '2024-05-01', ...body });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([{ path, message }]);
    }
    expect(await server.query('select 1 from entries where account_id = any($1)', [[checking, yen]])).toEqual([]);
    expect((await spend(household.writeKey, { account_id: checking, date: '2024-05-01', amount: 1.234, currency: 'KWD' })).status).toBe(201); // prettier-ignore

    const valuation = await server.api.call('createValuation', {
      key: household.writeKey,
      body: { valuation: { account_id: yen, amount: 1000.5, date: '2024-05-01' } },
    });
    expect(valuation.status).toBe(422);
    expect(valuation.body.errors).toEqual([{ path: '/body/valuation/amount', message: 'amount must be a whole number: JPY has no minor unit' }]); // prettier-ignore
    const opening = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Too fine', account_type: 'depository', balance: 10.005 } },
    });
    expect(opening.body.errors).toEqual([{ path: '/body/account/balance', message: 'balance must have at most 2 decimal places: the minor unit of USD' }]); // prettier-ignore
  });

  it('rounds a trade cash amount half to even to the minor unit, and shows it', async () => {
    const brokerage = await openAccount(household.writeKey, 'Rounding brokerage', { account_type: 'investment' });
    const trade = async (qty: number, price: number) =>
      (
        await server.api.call('createTrade', {
          key: household.writeKey,
          body: { trade: { account_id: brokerage, date: '2024-05-01', type: 'buy', qty, price, ticker: 'RND' } },
        })
      ).body.data;
    expect(await trade(1.5, 0.0125)).toMatchObject({ amount: '$0.02', amount_cents: 2 }); // 0.01875 -> 0.02
    expect(await trade(1, 0.125)).toMatchObject({ amount: '$0.12', amount_cents: 12 }); // a tie goes to the even 0.12
    expect(await trade(1, 0.135)).toMatchObject({ amount: '$0.14', amount_cents: 14 }); // and to 0.14
  });
});

describe('investment value', () => {
  it('is cash plus holdings at the latest price or trade price, converted at the rate of each day', async () => {
    const who = await createHousehold(server);
    const brokerage = await openAccount(who.writeKey, 'Brokerage', { account_type: 'investment' });
    await rate(who, 'EUR', 'USD', '2024-01-05', '1.1');
    const buy = (date: string, qty: number, price: number, ticker: string, currency?: string) =>
      server.api.call('createTrade', {
        key: who.writeKey,
        body: { trade: { account_id: brokerage, date, type: 'buy', qty, price, ticker, currency } },
      });
    expect((await buy('2024-01-10', 10, 100, 'ABC')).status).toBe(201);
    expect((await buy('2024-01-10', 5, 20, 'XYZ', 'EUR')).status).toBe(201);
    const prices = await server.api.call('createSecurityPrices', {
      key: who.writeKey,
      body: { security_prices: [{ ticker: 'ABC', date: '2024-02-01', price: 120, currency: 'USD' }] },
    });
    expect(prices.status).toBe(200);
    await server.drainJobs();
    const days = async (...dates: string[]) => {
      const { data } = await balancesOf(who.readKey, brokerage, { per_page: 100, start_date: '2024-01-10', end_date: '2024-02-01' }); // prettier-ignore
      return data
        .filter((b: any) => dates.includes(b.date))
        .map((b: any) => [
          b.date,
          b.balance_cents,
          b.cash_balance_cents,
          b.holdings_value_cents,
          b.missing_exchange_rates,
        ]);
    };
    // Cash paid 1000 + 100 EUR x 1.1 = 1110; holdings 10 x 100 + 5 x 20 EUR x 1.1 while the rate of 01-05
    // is at most 14 days old; after that the EUR holding is named, not guessed.
    expect(await days('2024-01-10', '2024-01-19', '2024-01-20', '2024-02-01')).toEqual([
      ['2024-02-01', -111000 + 120000, -111000, 120000, [{ from: 'EUR', to: 'USD', date: '2024-02-01' }]],
      ['2024-01-20', -111000 + 100000, -111000, 100000, [{ from: 'EUR', to: 'USD', date: '2024-01-20' }]],
      ['2024-01-19', 0, -111000, 111000, []],
      ['2024-01-10', 0, -111000, 111000, []],
    ]);
    await rate(who, 'USD', 'EUR', today, '0.8');
    await server.drainJobs();
    // Today: 10 x 120 + 5 x 20 / 0.8 = 1200 + 125.
    expect(await account(who.readKey, brokerage)).toMatchObject({
      cash_balance_cents: -111000,
      holdings_value_cents: 132500,
      balance_cents: 21500,
      balance_complete: true,
    });
  });
});

describe('net worth', () => {
  it('converts into the family currency per date, names what it cannot, and sums the flows', async () => {
    const who = await createHousehold(server);
    const checking = await openAccount(who.writeKey, 'Checking', { balance: 2000 });
    const savings = await openAccount(who.writeKey, 'Savings', { currency: 'EUR', balance: 1000 });
    const card = await openAccount(who.writeKey, 'Card', { account_type: 'credit_card' });
    await spend(who.writeKey, { account_id: checking, date: daysFromToday(-10), amount: 500, nature: 'income' });
    await spend(who.writeKey, { account_id: savings, date: daysFromToday(-10), amount: 100, nature: 'income' });
    await spend(who.writeKey, { account_id: card, date: daysFromToday(-5), amount: 150 });
    await rate(who, 'EUR', 'USD', daysFromToday(-3), '1.1');
    await server.drainJobs();
    const sheet = (await server.api.call('getBalanceSheet', { key: who.readKey, query: {} })).body.data;
    // Assets 2500 + 1100 EUR x 1.1 = 3710; owed 150.
    expect(sheet).toMatchObject({
      currency: 'USD',
      period: '1M',
      end_date: today,
      assets_cents: 371000,
      liabilities_cents: 15000,
      net_worth_cents: 356000,
      net_worth: '$3,560.00',
      complete: true,
      missing_exchange_rates: [{ from: 'EUR', to: 'USD', date: daysFromToday(-10) }],
      flows: { income_cents: 50000, expenses_cents: 15000, complete: false },
    });
    expect(
      sheet.groups.map((g: any) => [
        g.account_type,
        g.total_cents,
        g.accounts.map((a: any) => [a.name, a.balance_cents, a.exchange_rate, a.converted_balance_cents]),
      ]),
    ).toEqual([
      // prettier-ignore
      ['depository', 371000, [['Checking', 250000, null, 250000], ['Savings', 110000, '1.1', 121000]]],
      ['credit_card', 15000, [['Card', 15000, null, 15000]]],
    ]);
    const point = (days: number) => sheet.series.find((p: any) => p.date === daysFromToday(days));
    expect(sheet.series.at(-1)).toEqual({ date: today, net_worth: 356000, assets: 371000, liabilities: 15000, complete: true }); // prettier-ignore
    expect(point(-3)).toEqual({ date: daysFromToday(-3), net_worth: 356000, assets: 371000, liabilities: 15000, complete: true }); // prettier-ignore
    // Before the rate the savings are left out; before its first entry the card owed nothing.
    expect(point(-4)).toMatchObject({ assets: 250000, liabilities: 15000, complete: false });
    expect(point(-6)).toMatchObject({ assets: 250000, liabilities: 0, complete: false });
    expect(sheet.series[0].date).toBe(sheet.start_date);
    expect(point(-11)).toMatchObject({ assets: 0, liabilities: 0, complete: true });

    const year = (await server.api.call('getBalanceSheet', { key: who.readKey, query: { period: '1Y' } })).body.data;
    expect(year.series.at(-1).date).toBe(today);
    expect(year.series.at(-2).date).toBe(daysFromToday(-7));
    const bad = await server.api.call('getBalanceSheet', { key: who.readKey, query: { period: '2W' } as any });
    expect(bad.status).toBe(422);
  });
});

describe('the account sync', () => {
  it('rewrites only the days from a past write on, and ends equal to a sync from scratch', async () => {
    const who = await createHousehold(server);
    const checking = await openAccount(who.writeKey, 'History', { balance: 100 });
    await spend(who.writeKey, { account_id: checking, date: '2023-01-01', amount: 10 });
    await server.drainJobs();
    const stamps = async () =>
      new Map(
        (
          await server.query<{ date: string; updated_at: Date }>(
            "select to_char(date, 'YYYY-MM-DD') as date, updated_at from balances where account_id = $1",
            [checking],
          )
        ).map((row) => [row.date, row.updated_at.getTime()]),
      );
    const before = await stamps();
    await spend(who.writeKey, { account_id: checking, date: '2024-06-01', amount: 5 });
    await server.drainJobs();
    const after = await stamps();
    const changed = [...after].filter(([date, stamp]) => before.get(date) !== stamp).map(([date]) => date);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((date) => date >= '2024-06-01')).toBe(true);
    expect(changed).toContain('2024-06-01');
  });
});

describe('concurrent writes during syncs', () => {
  it('end with every daily balance equal to a recomputation from scratch', async () => {
    const who = await createHousehold(server);
    const accounts = [
      await openAccount(who.writeKey, 'A', { balance: 100 }),
      await openAccount(who.writeKey, 'B', { currency: 'EUR' }),
    ];
    await rate(who, 'EUR', 'USD', '2024-01-01', '1.05');
    const writes = Array.from({ length: 24 }, (_, i) =>
      spend(who.writeKey, {
        account_id: accounts[i % 2],
        date: `2024-0${1 + (i % 6)}-${10 + (i % 9)}`,
        amount: 1 + i,
        currency: i % 3 === 0 ? 'EUR' : undefined,
      }),
    );
    // Syncs run while the writes land, each write marking its own date.
    const [responses] = await Promise.all([Promise.all(writes), server.drainJobs(), server.drainJobs()]);
    expect(responses.map((response) => response.status)).toEqual(Array(24).fill(201));
    await expectBalancesFresh(server);
  });
});

describe('rounding in SQL and TypeScript', () => {
  it('agrees: a product rounded once, half to even, to the minor unit', async () => {
    const cases: [string, string, number][] = [
      ['0.15', '1.1', 2],
      ['0.25', '1.1', 2],
      ['-0.15', '1.1', 2],
      ['3000', '0.00666666666666666667', 0],
      ['12.3456', '0.919', 3],
      ['2.5', '1', 0],
      ['-3.5', '1', 0],
      ['1234567.89', '161.8312', 0],
    ];
    const rows = await server.query<{ rounded: string }>(
      `select round_half_even(a * b, p)::text as rounded
         from unnest($1::numeric[], $2::numeric[], $3::int[]) with ordinality as c(a, b, p, n) order by n`,
      [cases.map((c) => c[0]), cases.map((c) => c[1]), cases.map((c) => c[2])],
    );
    const typescript = cases.map(([a, b, places]) => trimDecimal(fromUnits(productUnits([a, b], places))));
    expect(rows.map((row) => trimDecimal(row.rounded))).toEqual(typescript);
    expect(typescript.slice(0, 3)).toEqual(['0.16', '0.28', '-0.16']);
  });
});

describe('a transfer removed by a cascade', () => {
  it("resyncs the other side's account: its inflow is income again", async () => {
    const who = await createHousehold(server);
    const checking = await openAccount(who.writeKey, 'Checking', { balance: 1000 });
    const savings = await openAccount(who.writeKey, 'Savings');
    const imported = await server.api.call('createImport', {
      key: who.writeKey,
      body: {
        type: 'TransactionImport',
        account_id: checking,
        publish: 'true',
        raw_file_content: 'date,amount,name\n2024-06-03,-250.00,To savings\n', // money out: inflows are positive
      },
    });
    expect(imported.status).toBe(201);
    await server.drainJobs();
    const [outflow] = (await server.api.call('listTransactions', { key: who.readKey, query: { account_id: checking } })).body.data; // prettier-ignore
    const inflow = await spend(who.writeKey, {
      account_id: savings,
      date: '2024-06-03',
      amount: 250,
      nature: 'income',
    });
    const link = await server.api.call('createTransfer', {
      key: who.writeKey,
      body: { transfer: { outflow_transaction_id: outflow.id, inflow_transaction_id: inflow.body.data.id } },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    await server.drainJobs();
    const day = async () =>
      (await balancesOf(who.readKey, savings, { start_date: '2024-06-03', end_date: '2024-06-03' })).data[0];
    expect((await day()).income_cents).toBe(0); // a transfer is not income

    const reverted = await server.api.call('revertImport', {
      key: who.writeKey,
      params: { id: imported.body.data.id },
    });
    expect(reverted.status).toBe(202);
    await server.drainJobs();
    // The revert removed the outflow and, by the cascade, the transfer; only checking's sync was queued.
    expect((await day()).income_cents).toBe(25000);
    expect(await server.query('select 1 from accounts where id = $1 and balances_stale_from is not null', [savings])).toEqual([]); // prettier-ignore
  });
});
