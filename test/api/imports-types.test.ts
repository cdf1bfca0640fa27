import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Issue 11: TradeImport, AccountImport, CategoryImport and RuleImport through the import_process
// job, with hand-checked values, a failing row each (nothing written), revert, and rules applied
// to later imports and to createTransaction.
let server: TestServer;
let household: TestHousehold;
let depot: string;
let checking: string;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server, { currency: 'EUR' });
  depot = await openAccount('Depot', 'investment');
  checking = await openAccount('Girokonto', 'depository');
  await server.drainJobs();
});
afterAll(() => server?.close());

async function openAccount(name: string, account_type: string, extra: Record<string, unknown> = {}) {
  const response = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name, account_type, ...extra } },
  });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

/** CSV text from cells, quoted where needed. */
function csv(rows: (string | number)[][]): string {
  const cell = (value: string | number) => {
    const text = String(value);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((row) => row.map(cell).join(',')).join('\n');
}

const show = (id: string) => server.api.call('getImport', { key: household.readKey, params: { id } });

/** Creates an import of `type`, publishes it, runs the jobs; returns the import as shown afterwards. */
async function runImport(type: string, content: string, extra: Record<string, unknown> = {}) {
  const created = await server.api.call('createImport', {
    key: household.writeKey,
    body: { type, raw_file_content: content, ...extra },
  });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  // The CSV is read, and pending syncs of earlier writes run, so a snapshot taken now is stable.
  await server.drainJobs();
  const staged = (await show(id)).body.data;
  expect(staged, JSON.stringify(staged)).toMatchObject({ error: null, stats: { invalid_rows_count: 0 } });
  const published = await server.api.call('publishImport', { key: household.writeKey, params: { id } });
  expect(published.status).toBe(202);
  await server.drainJobs();
  return (await show(id)).body.data as {
    id: string;
    status: string;
    error: string | null;
    stats: { rows_count: number; imported_count: number };
  };
}

async function revert(id: string) {
  const response = await server.api.call('revertImport', { key: household.writeKey, params: { id } });
  expect(response.status).toBe(202);
  await server.drainJobs();
  expect((await show(id)).body.data).toMatchObject({ status: 'pending', stats: { imported_count: 0 } });
}

const TABLES = [
  'accounts',
  'categories',
  'merchants',
  'tags',
  'taggings',
  'securities',
  'entries',
  'transactions',
  'valuations',
  'trades',
  'holdings',
  'rules',
] as const;

type Snapshot = Record<(typeof TABLES)[number], number> & Record<`${string}_changed`, unknown>;

/** Row counts of every table an import may write, and the latest change of accounts, categories and rules. */
async function snapshot() {
  const [counts] = await server.query<Snapshot>(
    `select ${TABLES.map((table) => `(select count(*) from ${table})::int as ${table}`).join(', ')},
       (select max(updated_at) from accounts) as accounts_changed,
       (select max(updated_at) from categories) as categories_changed,
       (select max(updated_at) from rules) as rules_changed`,
  );
  return counts!;
}

/** Runs an import expected to fail: `failed`, the error as given, and nothing written. */
/** Creates an import and lets its CSV be read; returns its id. */
async function stageImport(type: string, content: string): Promise<string> {
  const created = await server.api.call('createImport', {
    key: household.writeKey,
    body: { type, raw_file_content: content },
  });
  expect(created.status).toBe(201);
  await server.drainJobs();
  return created.body.data.id as string;
}

async function expectFailure(type: string, content: string, error: string, extra: Record<string, unknown> = {}) {
  const created = await server.api.call('createImport', {
    key: household.writeKey,
    body: { type, raw_file_content: content, ...extra },
  });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  await server.drainJobs();
  expect((await show(id)).body.data.stats.invalid_rows_count).toBe(0);
  const before = await snapshot();
  expect((await server.api.call('publishImport', { key: household.writeKey, params: { id } })).status).toBe(202);
  await server.drainJobs();
  expect((await show(id)).body.data).toMatchObject({ status: 'failed', error, stats: { imported_count: 0 } });
  expect(await snapshot()).toEqual(before);
}

const securitiesOf = (ticker: string) =>
  server.query<{ id: string; exchange_operating_mic: string | null }>(
    `select id, exchange_operating_mic from securities where family_id = $1 and upper(ticker) = $2 order by created_at`,
    [household.familyId, ticker],
  );

async function tradesOf(importId: string) {
  return server.query<{
    date: string;
    name: string;
    amount: string;
    currency: string;
    qty: string;
    price: string;
    label: string;
    ticker: string;
    security_id: string;
    account_id: string;
  }>(
    `select to_char(e.date, 'YYYY-MM-DD') as date, e.name, e.amount::text as amount, e.currency, t.qty::text as qty,
       t.price::text as price, t.investment_activity_label as label, s.ticker, s.id as security_id, e.account_id
     from entries e join trades t on t.id = e.entryable_id join securities s on s.id = t.security_id
     where e.import_id = $1 order by e.date, e.name`,
    [importId],
  );
}

const balanceCents = async (id: string) =>
  (await server.api.call('getAccount', { key: household.readKey, params: { id } })).body.data.balance_cents as number;

/** Balance, cash and holdings value of an account, in minor units. */
const figures = async (id: string) => {
  const { data } = (await server.api.call('getAccount', { key: household.readKey, params: { id } })).body;
  return [data.balance_cents, data.cash_balance_cents, data.holdings_value_cents] as [number, number, number];
};

describe('TransactionImport money', () => {
  it("fails naming the row whose amount is finer than its currency's minor unit, writing nothing", async () => {
    await openAccount('Yen wallet', 'depository', { currency: 'JPY' });
    const content = csv([
      ['date', 'amount', 'name', 'account', 'currency'],
      ['2024-04-01', '12.50', 'Lunch', 'Girokonto', ''],
      ['2024-04-01', '1.234', 'Fils', 'Girokonto', 'KWD'],
      ['2024-04-02', '980.5', 'Ramen', 'Yen wallet', ''],
    ]);
    await expectFailure('TransactionImport', content, 'Row 3: amount must be a whole number: JPY has no minor unit');
  });
});

describe('TradeImport', () => {
  let first: string;

  it('writes buys and sells signed as the API does, creating each security once', async () => {
    const content = csv([
      ['date', 'ticker', 'qty', 'price', 'currency', 'exchange_operating_mic'],
      ['2024-01-10', 'vti', '10', '200.50', '', ''],
      ['2024-01-11', 'AAPL', '5', '150.25', 'USD', 'xnas'],
      ['2024-02-01', 'VTI', '-4', '210', '', ''],
    ]);
    const done = await runImport('TradeImport', content, { account_id: depot });
    expect(done).toMatchObject({ status: 'complete', error: null, stats: { imported_count: 3 } });
    first = done.id;
    const trades = await tradesOf(first);
    expect(trades.map(({ security_id, account_id, ...rest }) => rest)).toEqual([
      {
        date: '2024-01-10',
        name: 'Buy 10 shares of VTI',
        amount: '2005.0000',
        currency: 'EUR',
        qty: '10.00000000',
        price: '200.5000',
        label: 'Buy',
        ticker: 'VTI',
      },
      {
        date: '2024-01-11',
        name: 'Buy 5 shares of AAPL',
        amount: '751.2500',
        currency: 'USD',
        qty: '5.00000000',
        price: '150.2500',
        label: 'Buy',
        ticker: 'AAPL',
      },
      {
        date: '2024-02-01',
        name: 'Sell 4 shares of VTI',
        amount: '-840.0000',
        currency: 'EUR',
        qty: '-4.00000000',
        price: '210.0000',
        label: 'Sell',
        ticker: 'VTI',
      },
    ]);
    expect(trades.every((trade) => trade.account_id === depot)).toBe(true);
    expect(await securitiesOf('VTI')).toEqual([{ id: trades[0]!.security_id, exchange_operating_mic: null }]);
    expect(await securitiesOf('AAPL')).toEqual([{ id: trades[1]!.security_id, exchange_operating_mic: 'XNAS' }]);

    // The API shows them as trades; the sync after the import derived holdings and the balance.
    const listed = await server.api.call('listTrades', {
      key: household.readKey,
      query: { account_id: depot, per_page: 10 },
    });
    const sale = listed.body.data.find((trade: { name: string }) => trade.name === 'Sell 4 shares of VTI');
    expect(sale).toMatchObject({ type: 'sell', qty: '-4', amount_cents: 84000, security: { ticker: 'VTI' } });
    const [vti] = await server.query<{ qty: string }>(
      `select qty::text from holdings where account_id = $1 and security_id = $2 order by date desc limit 1`,
      [depot, trades[0]!.security_id],
    );
    expect(vti!.qty).toBe('6.00000000');
    // A EUR account pays out its EUR trades: cash 0 - 2005 + 840; it holds 6 VTI at 210 = 1260. The
    // USD buy of AAPL has no rate into EUR: left out of cash and holdings, and named.
    expect(await figures(depot)).toEqual([9500, -116500, 126000]);
    const shown = (await server.api.call('getAccount', { key: household.readKey, params: { id: depot } })).body.data;
    expect([shown.balance_complete, shown.missing_exchange_rates]).toEqual([
      false,
      [{ from: 'USD', to: 'EUR', date: '2024-01-11' }],
    ]);
  });

  it('reuses the securities on a second import, by ticker in any case and with or without a MIC', async () => {
    const content = csv([
      ['Datum', 'Symbol', 'Anzahl', 'Kurs', 'Titel'],
      ['2024-03-01', 'Vti', '1', '220', ''],
      ['2024-03-02', 'aapl', '2', '160', 'Apple top-up'],
    ]);
    const done = await runImport('TradeImport', content, {
      account_id: depot,
      date_col_label: 'Datum',
      ticker_col_label: 'Symbol',
      qty_col_label: 'Anzahl',
      price_col_label: 'Kurs',
      name_col_label: 'Titel',
    });
    expect(done).toMatchObject({ status: 'complete', stats: { imported_count: 2 } });
    const trades = await tradesOf(done.id);
    const [vti] = await securitiesOf('VTI');
    const [aapl] = await securitiesOf('AAPL');
    expect(trades.map((trade) => [trade.name, trade.amount, trade.security_id])).toEqual([
      ['Buy 1 shares of VTI', '220.0000', vti!.id],
      ['Apple top-up', '320.0000', aapl!.id],
    ]);
    expect((await securitiesOf('VTI')).length).toBe(1);
    expect((await securitiesOf('AAPL')).length).toBe(1);
  });

  it("goes into the account each row names (any case) when the import has none, in that account's currency", async () => {
    const krypto = await openAccount('Krypto', 'crypto', { subtype: 'exchange', currency: 'USD' });
    const content = csv([
      ['date', 'ticker', 'qty', 'price', 'account'],
      ['2024-03-05', 'BTC', '0.5', '40000', 'krypto'],
      ['2024-03-06', 'VTI', '1', '225', 'DEPOT'],
    ]);
    const done = await runImport('TradeImport', content);
    expect(done).toMatchObject({ status: 'complete', stats: { imported_count: 2 } });
    expect((await tradesOf(done.id)).map((trade) => [trade.account_id, trade.currency, trade.amount])).toEqual([
      [krypto, 'USD', '20000.0000'],
      [depot, 'EUR', '225.0000'],
    ]);
  });

  it('fails naming the row of a sale beyond what the account holds on its date, writing nothing', async () => {
    // Depot holds 6 + 1 + 1 = 8 VTI from 2024-03-06 on.
    const content = csv([
      ['date', 'ticker', 'qty', 'price'],
      ['2024-04-01', 'NEWCO', '3', '10'],
      ['2024-04-02', 'VTI', '-2', '230'],
      ['2024-04-03', 'VTI', '-7', '230'],
    ]);
    await expectFailure(
      'TradeImport',
      content,
      "Row 3: Cannot sell more shares than held (VTI in 'Depot' on 2024-04-03)",
      { account_id: depot },
    );
    expect(await securitiesOf('NEWCO')).toEqual([]);
  });

  it('fails naming the row when its account does not take trades, writing nothing', async () => {
    const content = csv([
      ['date', 'ticker', 'qty', 'price', 'account'],
      ['2024-04-01', 'VTI', '1', '10', 'Depot'],
      ['2024-04-01', 'NEWCO', '1', '10', 'girokonto'],
    ]);
    await expectFailure(
      'TradeImport',
      content,
      "Row 2: account 'Girokonto' does not support trades (only investment and crypto exchange accounts do)",
    );
  });

  it('reverts exactly its trades; the securities it created stay', async () => {
    const account = await openAccount('Revert Depot', 'investment');
    const content = csv([
      ['date', 'ticker', 'qty', 'price'],
      ['2024-05-01', 'RVT', '3', '10'],
      ['2024-05-02', 'VTI', '1', '230'],
    ]);
    const done = await runImport('TradeImport', content, { account_id: account });
    expect(done.status).toBe('complete');
    const [created] = await securitiesOf('RVT');
    // Cash paid 3 x 10 + 230 for holdings worth as much.
    expect(await figures(account)).toEqual([0, -26000, 26000]);
    const before = await snapshot();
    await revert(done.id);
    expect(await tradesOf(done.id)).toEqual([]);
    const after = await snapshot();
    expect(after).toMatchObject({
      entries: before.entries - 2,
      trades: before.trades - 2,
      securities: before.securities,
      accounts: before.accounts,
    });
    expect(await securitiesOf('RVT')).toEqual([created]);
    // Earlier imports' trades are untouched.
    expect((await tradesOf(first)).length).toBe(3);
    expect(await balanceCents(account)).toBe(0);
    const holdings = await server.query('select 1 from holdings where account_id = $1', [account]);
    expect(holdings).toEqual([]);
  });

  it('takes 20 imports into one account at once: all complete, every security once', async () => {
    const account = await openAccount('Busy Depot', 'investment');
    const content = (n: number) =>
      csv([
        ['date', 'ticker', 'qty', 'price'],
        ['2024-06-01', 'SHARED', '2', '10'],
        ['2024-06-02', 'SHARED', '-1', '11'],
        [`2024-06-03`, `N${n % 4}`, '1', '5'],
      ]);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        server.api.call('createImport', {
          key: household.writeKey,
          body: { type: 'TradeImport', raw_file_content: content(n), account_id: account, publish: 'true' },
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    // Four job runners at once: the family's imports still run one at a time, each in its turn.
    await Promise.all(Array.from({ length: 4 }, () => server.drainJobs()));
    for (const response of responses) {
      expect((await show(response.body.data.id)).body.data).toMatchObject({
        status: 'complete',
        stats: { imported_count: 3 },
      });
    }
    const [counted] = await server.query<{ n: number }>(
      `select count(*)::int as n from entries where account_id = $1 and entryable_type = 'Trade'`,
      [account],
    );
    expect(counted!.n).toBe(60);
    for (const ticker of ['SHARED', 'N0', 'N1', 'N2', 'N3']) expect((await securitiesOf(ticker)).length).toBe(1);
    const [shared] = await securitiesOf('SHARED');
    const [held] = await server.query<{ qty: string }>(
      `select qty::text from holdings where account_id = $1 and security_id = $2 order by date desc limit 1`,
      [account, shared!.id],
    );
    expect(held!.qty).toBe('20.00000000');
    // 20 x (20 - 11 + 5) paid out of an asset account, for 20 SHARED at the last price 11 and
    // 5 each of N0-N3 at 5: 220 + 100.
    expect(await figures(account)).toEqual([4000, -28000, 32000]);
    // Forty jobs in turn (each import read, then written): more than the default 30 s on a busy machine.
  }, 120_000);
});

describe('AccountImport', () => {
  let tagesgeld: Record<string, unknown>;
  const nextYear = `${new Date().getUTCFullYear() + 1}-01-01`;

  it('opens one account per row with its opening balance, currency and type', async () => {
    const content = csv([
      ['Account type', 'Name', 'Balance', 'Currency', 'Balance Date'],
      ['depository', 'Tagesgeld', '1,234.56', '', ''],
      ['Credit Card', 'Visa', '500', 'usd', '2024-01-15'],
      ['loan', 'Mortgage', '250,000.00', '', '2024-01-01'],
      ['investment', 'Future Depot', '100', '', nextYear],
    ]);
    const done = await runImport('AccountImport', content);
    expect(done).toMatchObject({ status: 'complete', error: null, stats: { imported_count: 4 } });
    const accounts = await server.query<Record<string, unknown>>(
      `select id, name, account_type, currency, balance::text as balance, opening_balance::text as opening_balance,
         sync_error
       from accounts where import_id = $1 order by name`,
      [done.id],
    );
    expect(accounts.map(({ id, ...rest }) => rest)).toEqual([
      {
        name: 'Future Depot',
        account_type: 'investment',
        currency: 'EUR',
        balance: '100.0000',
        opening_balance: '100.0000',
        sync_error: null,
      },
      {
        name: 'Mortgage',
        account_type: 'loan',
        currency: 'EUR',
        balance: '250000.0000',
        opening_balance: '250000.0000',
        sync_error: null,
      },
      {
        name: 'Tagesgeld',
        account_type: 'depository',
        currency: 'EUR',
        balance: '1234.5600',
        opening_balance: '1234.5600',
        sync_error: null,
      },
      {
        name: 'Visa',
        account_type: 'credit_card',
        currency: 'USD',
        balance: '500.0000',
        opening_balance: '500.0000',
        sync_error: null,
      },
    ]);
    // A dated balance is a valuation on that date, carrying the import's id.
    const valuations = await server.query(
      `select a.name, to_char(e.date, 'YYYY-MM-DD') as date, e.amount::text as amount, e.currency, e.name as entry,
         v.kind
       from entries e join valuations v on v.id = e.entryable_id join accounts a on a.id = e.account_id
       where e.import_id = $1 order by a.name`,
      [done.id],
    );
    expect(valuations).toEqual([
      {
        name: 'Future Depot',
        date: nextYear,
        amount: '100.0000',
        currency: 'EUR',
        entry: 'Opening balance',
        kind: 'opening_anchor',
      },
      {
        name: 'Mortgage',
        date: '2024-01-01',
        amount: '250000.0000',
        currency: 'EUR',
        entry: 'Opening balance',
        kind: 'opening_anchor',
      },
      {
        name: 'Visa',
        date: '2024-01-15',
        amount: '500.0000',
        currency: 'USD',
        entry: 'Opening balance',
        kind: 'opening_anchor',
      },
    ]);
    tagesgeld = accounts.find((account) => account.name === 'Tagesgeld')!;
    const listed = await server.api.call('getAccount', {
      key: household.readKey,
      params: { id: tagesgeld.id as string },
    });
    expect(listed.body.data).toMatchObject({ balance_cents: 123456, classification: 'asset', currency: 'EUR' });
  });

  it('keeps the balances through later account syncs: from the opening balance, or from its dated valuation', async () => {
    const visa = (await server.query<{ id: string }>(`select id from accounts where name = 'Visa'`))[0]!.id;
    const spend = (account_id: string, date: string, amount: number) =>
      server.api.call('createTransaction', {
        key: household.writeKey,
        body: { transaction: { account_id, date, amount, name: 'Spend' } },
      });
    expect((await spend(tagesgeld.id as string, '2024-02-01', 34.56)).status).toBe(201);
    // Before Visa's opening valuation: not counted; after it: the card owes more.
    expect((await spend(visa, '2024-01-10', 99)).status).toBe(201);
    expect((await spend(visa, '2024-02-01', 20)).status).toBe(201);
    await server.drainJobs();
    expect(await balanceCents(tagesgeld.id as string)).toBe(120000);
    expect(await balanceCents(visa)).toBe(52000);
  });

  it('flags the rows naming an account the family has (any case), or that an earlier row has, before publishing', async () => {
    const id = await stageImport(
      'AccountImport',
      csv([
        ['Account Name', 'type', 'balance'],
        ['Brand New', 'depository', '1'],
        ['TAGESGELD', 'depository', '2'],
        ['brand new', 'depository', 'x'],
      ]),
    );
    expect((await show(id)).body.data.stats).toMatchObject({ valid_rows_count: 1, invalid_rows_count: 2 });
    const rows = await server.api.call('listImportRows', { key: household.readKey, params: { id } });
    expect(rows.body.data.map((row: { valid: boolean; errors: unknown }) => [row.valid, row.errors])).toEqual([
      [true, []],
      [false, [{ column: 'Account Name', message: "an account named 'TAGESGELD' already exists" }]],
      [
        false,
        [
          { column: 'balance', message: "amount 'x' is not a number in the format 1,234.56" },
          { column: 'Account Name', message: "an account named 'brand new' is already in row 1" },
        ],
      ],
    ]);
    const before = await snapshot();
    const refused = await server.api.call('publishImport', { key: household.writeKey, params: { id } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe('The import has 2 invalid rows; fix the configuration or the CSV first');
    expect(await snapshot()).toEqual(before);
  });

  it('fails naming the row when the account was opened after the rows were read', async () => {
    const id = await stageImport(
      'AccountImport',
      csv([
        ['name', 'type', 'balance'],
        ['Late Comer', 'depository', '1'],
      ]),
    );
    expect((await show(id)).body.data.stats).toMatchObject({ valid_rows_count: 1, invalid_rows_count: 0 });
    await openAccount('late comer', 'depository');
    await server.drainJobs();
    const before = await snapshot();
    expect((await server.api.call('publishImport', { key: household.writeKey, params: { id } })).status).toBe(202);
    await server.drainJobs();
    expect((await show(id)).body.data).toMatchObject({
      status: 'failed',
      error: "Row 1: an account named 'Late Comer' already exists",
      stats: { imported_count: 0 },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('reverts exactly its accounts and their opening valuations', async () => {
    const before = await snapshot();
    const done = await runImport(
      'AccountImport',
      csv([
        ['name', 'type', 'balance', 'date'],
        ['Temp Savings', 'depository', '10', '2024-01-01'],
        ['Temp Loan', 'loan', '20', ''],
      ]),
    );
    expect(done).toMatchObject({ status: 'complete', stats: { imported_count: 2 } });
    await revert(done.id);
    const after = await snapshot();
    expect({ ...after, accounts_changed: null }).toEqual({ ...before, accounts_changed: null });
    expect(await server.query(`select 1 from accounts where name like 'Temp %'`)).toEqual([]);
    expect(await server.query(`select 1 from accounts where name = 'Tagesgeld'`)).toHaveLength(1);
  });
});

describe('CategoryImport', () => {
  let food: string;

  beforeAll(async () => {
    const created = await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'Food', color: '#111111' } },
    });
    food = created.body.data.id;
    await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'Snacks', parent_id: food } },
    });
  });

  const categories = async () => {
    const listed = await server.api.call('listCategories', { key: household.readKey, query: { per_page: 100 } });
    return Object.fromEntries(
      listed.body.data.map((category: { name: string; color: string; icon: string | null; parent: unknown }) => [
        category.name,
        {
          color: category.color,
          icon: category.icon,
          parent: (category.parent as { name: string } | null)?.name ?? null,
        },
      ]),
    );
  };

  it('creates new categories under parents reused or created first; existing ones stay as they are', async () => {
    const content = csv([
      ['name', 'color', 'parent', 'icon'],
      ['Groceries', '#22AA44', 'Food', 'shopping-cart'],
      ['Restaurants', '', 'food', ''],
      ['FOOD', '#000000', '', 'pizza'],
      ['Salary', '#00FF00', 'Income', 'banknote'],
      ['Income', '#0000FF', '', ''],
      ['Bonus', '', 'Income', ''],
      ['Fuel', '', 'Transport', 'fuel'],
      ['groceries', '#FFFFFF', '', ''],
    ]);
    const done = await runImport('CategoryImport', content);
    // Groceries, Restaurants, Salary, Income, Bonus, Fuel and the parent Transport.
    expect(done).toMatchObject({ status: 'complete', error: null, stats: { imported_count: 7 } });
    expect(await categories()).toEqual({
      Food: { color: '#111111', icon: null, parent: null },
      Snacks: { color: '#6172F3', icon: null, parent: 'Food' },
      Groceries: { color: '#22AA44', icon: 'shopping-cart', parent: 'Food' },
      Restaurants: { color: '#6172F3', icon: null, parent: 'Food' },
      Income: { color: '#0000FF', icon: null, parent: null },
      Salary: { color: '#00FF00', icon: 'banknote', parent: 'Income' },
      Bonus: { color: '#6172F3', icon: null, parent: 'Income' },
      Transport: { color: '#6172F3', icon: null, parent: null },
      Fuel: { color: '#6172F3', icon: 'fuel', parent: 'Transport' },
    });
    const [tagged] = await server.query<{ n: number }>(
      'select count(*)::int as n from categories where import_id = $1',
      [done.id],
    );
    expect(tagged!.n).toBe(7);
  });

  it('fails naming the row whose parent is itself a subcategory (one level of nesting), writing nothing', async () => {
    await expectFailure(
      'CategoryImport',
      csv([
        ['name', 'parent'],
        ['Chips', ''],
        ['Crisps', 'snacks'],
      ]),
      "Row 2: category 'Crisps' cannot go under 'snacks', which is itself a subcategory (categories nest one level)",
    );
    await expectFailure(
      'CategoryImport',
      csv([
        ['name', 'parent'],
        ['Tea', 'Drinks'],
        ['Drinks', 'Beverages'],
      ]),
      "Row 1: category 'Tea' cannot go under 'Drinks', which is itself a subcategory (categories nest one level)",
    );
  });

  it('reverts exactly the categories it created', async () => {
    const before = await categories();
    const done = await runImport(
      'CategoryImport',
      csv([
        ['name', 'parent'],
        ['Temp Child', 'Temp Parent'],
        ['Food', ''],
        ['Temp Other', 'Income'],
      ]),
    );
    expect(done).toMatchObject({ status: 'complete', stats: { imported_count: 3 } });
    expect(Object.keys(await categories())).toEqual(
      expect.arrayContaining(['Temp Child', 'Temp Parent', 'Temp Other']),
    );
    await revert(done.id);
    expect(await categories()).toEqual(before);
  });
});

describe('RuleImport', () => {
  let rulesImport: string;
  let own: string;

  const conditions = (operator: string, value: string) =>
    JSON.stringify([{ condition_type: 'transaction_name', operator, value }]);
  const action = (action_type: string, value: unknown) => ({ action_type, value });
  const actions = (...list: unknown[]) => JSON.stringify(list);

  beforeAll(async () => {
    await server.api.call('createTag', { key: household.writeKey, body: { tag: { name: 'Essen' } } });
    const created = await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'Own' } },
    });
    own = created.body.data.id;
  });

  const storedRules = () =>
    server.query<Record<string, unknown>>(
      `select r.name, r.active, to_char(r.effective_date, 'YYYY-MM-DD') as effective_date, r.conditions,
         (select jsonb_agg(jsonb_build_object('action_type', a->>'action_type', 'names',
            coalesce((select jsonb_agg(coalesce(c.name, m.name, g.name) order by coalesce(c.name, m.name, g.name))
                      from jsonb_array_elements_text(case jsonb_typeof(a->'value') when 'array' then a->'value'
                             else jsonb_build_array(a->'value') end) v(id)
                      left join categories c on c.id = v.id::uuid left join merchants m on m.id = v.id::uuid
                      left join tags g on g.id = v.id::uuid), '[]'::jsonb)))
          from jsonb_array_elements(r.actions) a) as actions,
         r.import_id
       from rules r where r.family_id = $1 order by lower(r.name)`,
      [household.familyId],
    );

  it('stores the rules with their records found or created by name, a name made up where none is given', async () => {
    const content = csv([
      ['name', 'resource_type', 'active', 'effective_date', 'conditions', 'actions'],
      [
        'Groceries rule',
        'transaction',
        'true',
        '',
        conditions('like', 'grocery'),
        actions(action('set_transaction_category', 'Supermarkt'), action('set_transaction_tags', ['essen', 'Weekly'])),
      ],
      ['', 'transaction', '', '', conditions('=', 'RENT'), actions(action('set_transaction_merchant', 'Landlord'))],
      [
        'Off',
        'transaction',
        'no',
        '',
        conditions('like', 'grocery'),
        actions(action('set_transaction_category', 'Never')),
      ],
      [
        'Coffee rule',
        'transaction',
        'y',
        '2024-06-01',
        conditions('like', 'coffee'),
        actions(action('set_transaction_category', 'supermarkt'), action('set_transaction_category', 'Cafe')),
      ],
    ]);
    const done = await runImport('RuleImport', content);
    expect(done).toMatchObject({ status: 'complete', error: null, stats: { imported_count: 4 } });
    rulesImport = done.id;
    const like = (value: string) => [{ condition_type: 'transaction_name', operator: 'like', value }];
    expect(await storedRules()).toEqual([
      {
        name: 'Coffee rule',
        active: true,
        effective_date: '2024-06-01',
        conditions: like('coffee'),
        actions: [
          { action_type: 'set_transaction_category', names: ['Supermarkt'] },
          { action_type: 'set_transaction_category', names: ['Cafe'] },
        ],
        import_id: done.id,
      },
      {
        name: 'Groceries rule',
        active: true,
        effective_date: null,
        conditions: like('grocery'),
        actions: [
          { action_type: 'set_transaction_category', names: ['Supermarkt'] },
          { action_type: 'set_transaction_tags', names: ['Essen', 'Weekly'] },
        ],
        import_id: done.id,
      },
      {
        name: 'Name is "RENT": merchant Landlord',
        active: true,
        effective_date: null,
        conditions: [{ condition_type: 'transaction_name', operator: '=', value: 'RENT' }],
        actions: [{ action_type: 'set_transaction_merchant', names: ['Landlord'] }],
        import_id: done.id,
      },
      {
        name: 'Off',
        active: false,
        effective_date: null,
        conditions: like('grocery'),
        actions: [{ action_type: 'set_transaction_category', names: ['Never'] }],
        import_id: done.id,
      },
    ]);
    // Created where missing (with the import's id), found in any case where not: Essen existed.
    const created = await server.query(
      `select 'category' as kind, name from categories where import_id = $1
       union all select 'merchant', name from merchants where import_id = $1
       union all select 'tag', name from tags where import_id = $1 order by 1, 2`,
      [done.id],
    );
    expect(created).toEqual([
      { kind: 'category', name: 'Cafe' },
      { kind: 'category', name: 'Never' },
      { kind: 'category', name: 'Supermarkt' },
      { kind: 'merchant', name: 'Landlord' },
      { kind: 'tag', name: 'Weekly' },
    ]);
  });

  it('applies the active rules in effect to the transactions of a later TransactionImport', async () => {
    const content = csv([
      ['date', 'amount', 'name', 'category'],
      ['2024-03-01', '-12.50', 'Grocery Store', ''],
      ['2024-03-02', '-20', 'GROCERY outlet', 'Own'],
      ['2024-03-03', '-900', 'RENT', ''],
      ['2024-03-04', '-900', 'rent', ''],
      ['2024-05-01', '-3', 'Coffee', ''],
      ['2024-07-01', '-3', 'Coffee', ''],
    ]);
    const done = await runImport('TransactionImport', content, { account_id: checking });
    expect(done).toMatchObject({ status: 'complete', stats: { imported_count: 6 } });
    const applied = await server.query(
      `select to_char(e.date, 'YYYY-MM-DD') as date, e.name, c.name as category, m.name as merchant,
         coalesce((select string_agg(g.name, '|' order by g.name) from taggings tg join tags g on g.id = tg.tag_id
                   where tg.taggable_id = t.id), '') as tags
       from entries e join transactions t on t.id = e.entryable_id
       left join categories c on c.id = t.category_id left join merchants m on m.id = t.merchant_id
       where e.import_id = $1 order by e.date`,
      [done.id],
    );
    expect(applied).toEqual([
      { date: '2024-03-01', name: 'Grocery Store', category: 'Supermarkt', merchant: null, tags: 'Essen|Weekly' },
      // The row's own category wins; the rule's tags still fill the empty tags.
      { date: '2024-03-02', name: 'GROCERY outlet', category: 'Own', merchant: null, tags: 'Essen|Weekly' },
      { date: '2024-03-03', name: 'RENT', category: null, merchant: 'Landlord', tags: '' },
      // `=` is the exact name.
      { date: '2024-03-04', name: 'rent', category: null, merchant: null, tags: '' },
      // Before the rule's effective date.
      { date: '2024-05-01', name: 'Coffee', category: null, merchant: null, tags: '' },
      // Of two actions setting the category, the rule's first counts.
      { date: '2024-07-01', name: 'Coffee', category: 'Supermarkt', merchant: null, tags: '' },
    ]);
  });

  it('applies them to createTransaction for what the request leaves out', async () => {
    const create = async (transaction: Record<string, unknown>) => {
      const response = await server.api.call('createTransaction', {
        key: household.writeKey,
        body: { transaction: { account_id: checking, date: '2024-08-01', amount: 42, ...transaction } },
      });
      expect(response.status).toBe(201);
      const data = response.body.data;
      return {
        category: data.category?.name ?? null,
        merchant: data.merchant?.name ?? null,
        tags: data.tags.map((tag: { name: string }) => tag.name).sort(),
      };
    };
    expect(await create({ name: 'Weekly grocery run' })).toEqual({
      category: 'Supermarkt',
      merchant: null,
      tags: ['Essen', 'Weekly'],
    });
    expect(await create({ name: 'Weekly grocery run', category_id: own, tag_ids: [] })).toEqual({
      category: 'Own',
      merchant: null,
      tags: [],
    });
    expect(await create({ name: 'RENT' })).toEqual({ category: null, merchant: 'Landlord', tags: [] });
    expect(await create({ name: 'RENT', merchant_id: null })).toEqual({ category: null, merchant: null, tags: [] });
    expect(await create({ name: 'Coffee', date: '2024-05-31' })).toEqual({ category: null, merchant: null, tags: [] });
    expect(await create({ name: 'Nothing matches' })).toEqual({ category: null, merchant: null, tags: [] });
    // What the response showed is what is stored.
    const [stored] = await server.query<{ category: string }>(
      `select c.name as category from entries e join transactions t on t.id = e.entryable_id
       join categories c on c.id = t.category_id where e.name = 'Weekly grocery run' and e.date = '2024-08-01'
       order by e.created_at limit 1`,
    );
    expect(stored!.category).toBe('Supermarkt');
  });

  it('fails naming the row of a condition or action it cannot use, writing nothing', async () => {
    const header = ['name', 'resource_type', 'conditions', 'actions'];
    const good = ['Good', 'transaction', conditions('like', 'x'), actions(action('set_transaction_category', 'Nope'))];
    const cases: [string[], string][] = [
      [
        ['Bad', 'transaction', JSON.stringify([{ condition_type: 'amount', operator: '>', value: '5' }]), good[3]!],
        "Row 2: condition 1: condition_type 'amount' is not supported (only transaction_name)",
      ],
      [
        ['Bad', 'transaction', conditions('contains', 'x'), good[3]!],
        "Row 2: condition 1: operator 'contains' is not supported (like or =)",
      ],
      [['Bad', 'transaction', '[]', good[3]!], 'Row 2: a rule needs at least one condition'],
      [
        ['Bad', 'transaction', '[1]', good[3]!],
        'Row 2: condition 1 must be an object with condition_type, operator and value',
      ],
      [
        ['Bad', 'transaction', good[2]!, actions(action('delete_transaction', 'x'))],
        "Row 2: action 1: action_type 'delete_transaction' is not supported (set_transaction_category, set_transaction_merchant, set_transaction_tags)",
      ],
      [
        ['Bad', 'transaction', good[2]!, actions(action('set_transaction_merchant', 7))],
        'Row 2: action 1: value must be a name of 1 to 255 characters',
      ],
      [
        ['Bad', 'transaction', good[2]!, actions(action('set_transaction_tags', ['ok', '']))],
        'Row 2: action 1: value must be a tag name or a list of tag names of 1 to 255 characters',
      ],
    ];
    for (const [row, error] of cases) await expectFailure('RuleImport', csv([header, good, row]), error);
    expect(await server.query(`select 1 from categories where name = 'Nope'`)).toEqual([]);
  });

  it('updates a rule of the same name in place (keeping its origin); a revert removes only what it created', async () => {
    const before = await snapshot();
    const done = await runImport(
      'RuleImport',
      csv([
        ['name', 'resource_type', 'conditions', 'actions'],
        [
          'GROCERIES RULE',
          'transaction',
          conditions('like', 'grocer'),
          actions(action('set_transaction_category', 'supermarkt')),
        ],
        [
          'Temp rule',
          'transaction',
          conditions('like', 'temp'),
          actions(action('set_transaction_merchant', 'Temp Merchant')),
        ],
      ]),
    );
    expect(done).toMatchObject({ status: 'complete', stats: { imported_count: 2 } });
    const changed = (await storedRules()).find((rule) => rule.name === 'Groceries rule')!;
    expect(changed).toMatchObject({
      conditions: [{ condition_type: 'transaction_name', operator: 'like', value: 'grocer' }],
      actions: [{ action_type: 'set_transaction_category', names: ['Supermarkt'] }],
      import_id: rulesImport,
    });
    expect((await storedRules()).map((rule) => rule.name)).toContain('Temp rule');
    await revert(done.id);
    const names = (await storedRules()).map((rule) => rule.name);
    expect(names).not.toContain('Temp rule');
    expect(names).toContain('Groceries rule');
    expect(await server.query(`select 1 from merchants where name = 'Temp Merchant'`)).toEqual([]);
    expect({ ...(await snapshot()), rules_changed: null }).toEqual({ ...before, rules_changed: null });
  });

  it('reverts a RuleImport: its rules and the records it created go, rules of other imports stay', async () => {
    const done = await runImport(
      'RuleImport',
      csv([
        ['name', 'resource_type', 'conditions', 'actions'],
        ['Gym', 'transaction', conditions('like', 'gym'), actions(action('set_transaction_tags', 'Fitness'))],
      ]),
    );
    expect(done.status).toBe('complete');
    const count = async () =>
      (
        await server.query<{ n: number }>('select count(*)::int as n from rules where family_id = $1', [
          household.familyId,
        ])
      )[0]!.n;
    expect(await count()).toBe(5);
    await revert(done.id);
    expect(await count()).toBe(4);
    expect(await server.query(`select 1 from tags where name = 'Fitness'`)).toEqual([]);
  });
});
