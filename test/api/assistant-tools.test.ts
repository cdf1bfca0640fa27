import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../server/assistant/tools/assistant-tool.ts';
import { runTool, toolDefinitions } from '../../server/assistant/tools/tool-runner.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

/**
 * The assistant's read-only tools over a `pg` client, as the assistant job runs them. Records are
 * written through the API; every expected figure below is worked out by hand from those writes.
 */
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let client: pg.Client;
let context: ToolContext;
let otherContext: ToolContext;
/** Ids of the other household's records: none may ever appear in this household's answers. */
const otherIds: string[] = [];
const ids: Record<string, string> = {};

async function create(key: string, operationId: string, body: unknown): Promise<string> {
  const response = await server.api.call(operationId as never, { key, body });
  if (response.status !== 201) throw new Error(`${operationId}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.id as string;
}
const account = (key: string, name: string, account_type: string, balance: number, currency?: string) =>
  create(key, 'createAccount', { account: { name, account_type, balance, currency } });
const category = (key: string, name: string) => create(key, 'createCategory', { category: { name, color: '#22C55E' } });
const transaction = (key: string, fields: Record<string, unknown>) =>
  create(key, 'createTransaction', { transaction: fields });
const trade = (
  key: string,
  account_id: string,
  date: string,
  type: string,
  qty: number,
  price: number,
  ticker: string,
) => create(key, 'createTrade', { trade: { account_id, date, type, qty, price, ticker } });

const call = async (name: string, args: unknown, on = context) =>
  (await runTool(on, name, typeof args === 'string' ? args : JSON.stringify(args))).result as Record<string, any>;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  const key = household.writeKey;
  ids.checking = await account(key, 'Everyday Checking', 'depository', 1000);
  ids.card = await account(key, 'Travel Card', 'credit_card', 0);
  ids.euro = await account(key, 'Euro Savings', 'depository', 500, 'EUR');
  ids.brokerage = await account(key, 'Brokerage', 'investment', 5000);
  ids.closed = await account(key, 'Closed Savings', 'depository', 100);
  const groceries = await category(key, 'Groceries');
  const dining = await category(key, 'Dining');
  const travel = await category(key, 'Travel');
  const shop = await create(key, 'createMerchant', { merchant: { name: 'Corner Shop' } });
  const work = await create(key, 'createTag', { tag: { name: 'Work', color: '#6366F1' } });
  const spend = (date: string, name: string, amount: number, extra: Record<string, unknown> = {}) =>
    transaction(key, { account_id: ids.checking, date, name, amount, nature: 'expense', ...extra });
  await spend('2026-03-02', 'Weekly shop', 50, { category_id: groceries, merchant_id: shop, tag_ids: [work] });
  await spend('2026-03-09', 'Market', 30.25, { category_id: groceries });
  await spend('2026-03-10', 'Pizza night', 20, { category_id: dining });
  await spend('2026-03-15', 'Salary', 2000, { nature: 'income' });
  await spend('2026-03-12', 'Parking', 7.5);
  await spend('2026-03-20', 'Train tickets', 120, { account_id: ids.card, category_id: travel });
  ids.duplicate = await spend('2026-03-21', 'Duplicate import', 999, { category_id: groceries });
  await spend('2026-04-02', 'April coffee', 10, { category_id: dining });
  await spend('2026-03-05', 'Marché', 40, { account_id: ids.euro, currency: 'EUR', category_id: groceries });
  await trade(key, ids.brokerage, '2026-01-10', 'buy', 10, 100, 'ABC');
  await trade(key, ids.brokerage, '2026-02-10', 'buy', 5, 130, 'ABC');
  await trade(key, ids.brokerage, '2026-01-15', 'buy', 4, 50, 'XYZ');
  await trade(key, ids.brokerage, '2026-03-01', 'sell', 4, 60, 'XYZ');

  // The other household: a same-named account and category, and records only it has.
  const theirs = other.writeKey;
  const theirChecking = await account(theirs, 'Everyday Checking', 'depository', 777.77);
  const stash = await account(theirs, 'Secret Stash', 'depository', 10000);
  const theirBrokerage = await account(theirs, 'Secret Brokerage', 'investment', 0);
  const theirGroceries = await category(theirs, 'Groceries');
  const hidden = await category(theirs, 'Hidden Category');
  const merchant = await create(theirs, 'createMerchant', { merchant: { name: 'Secret Merchant' } });
  const tag = await create(theirs, 'createTag', { tag: { name: 'Secret Tag', color: '#6366F1' } });
  otherIds.push(theirChecking, stash, theirBrokerage, theirGroceries, hidden, merchant, tag);
  otherIds.push(
    await transaction(theirs, { account_id: theirChecking, date: '2026-03-10', name: 'Other groceries', amount: 555.55, category_id: theirGroceries, merchant_id: merchant, tag_ids: [tag] }), // prettier-ignore
    await transaction(theirs, { account_id: stash, date: '2026-03-11', name: 'Hidden spend', amount: 444.44, category_id: hidden }), // prettier-ignore
    await trade(theirs, theirBrokerage, '2026-01-10', 'buy', 1000, 1, 'ABC'),
  );

  // The card paid in full from checking: a transfer, neither income nor expense.
  await create(key, 'createTransfer', {
    transfer: { from_account_id: ids.checking, to_account_id: ids.card, amount: 120, date: '2026-03-25' },
  });

  // What the API does not write: an entry excluded from budgets, a disabled account.
  await server.query('update entries set excluded = true where id = $1', [ids.duplicate]);
  await server.query("update accounts set status = 'disabled' where id = $1", [ids.closed]);
  await server.drainJobs();

  const [now] = await server.query<{ today: string }>("select to_char(current_date, 'YYYY-MM-DD') as today");
  client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  context = { db: client, familyId: household.familyId, currency: 'USD', today: now!.today };
  otherContext = { ...context, familyId: other.familyId };
});
afterAll(async () => {
  await client?.end();
  await server?.close();
});

describe('get_accounts', () => {
  it('lists every account with its classification and exact balance', async () => {
    const result = await call('get_accounts', {});
    expect(result.total_count).toBe(5);
    expect(
      result.accounts.map((a: any) => [a.name, a.type, a.classification, a.balance, a.currency, a.status]),
    ).toEqual([
      ['Brokerage', 'investment', 'asset', '5340.0000', 'USD', 'active'], // cash 5000 - 1000 - 650 - 200 + 240, + 15 ABC x 130
      ['Closed Savings', 'depository', 'asset', '100.0000', 'USD', 'disabled'],
      ['Euro Savings', 'depository', 'asset', '460.0000', 'EUR', 'active'], // 500 - 40
      ['Everyday Checking', 'depository', 'asset', '2762.2500', 'USD', 'active'], // 1000 - 237.75 + 2000
      ['Travel Card', 'credit_card', 'liability', '0.0000', 'USD', 'active'], // 120 owed, 120 paid
    ]);
  });

  it('filters by classification and by type', async () => {
    const liabilities = await call('get_accounts', { classification: 'liability' });
    expect(liabilities.accounts.map((a: any) => a.name)).toEqual(['Travel Card']);
    const investments = await call('get_accounts', { account_type: 'investment' });
    expect(investments.accounts.map((a: any) => a.name)).toEqual(['Brokerage']);
  });
});

describe('get_transactions', () => {
  it('filters by names (case-insensitive), pages, totals every match and reports unknown names', async () => {
    const result = await call('get_transactions', {
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      accounts: ['everyday checking'],
      categories: ['GROCERIES', 'Nonexistent'],
      page_size: 2,
    });
    expect(result.transactions.map((t: any) => [t.date, t.name, t.amount, t.type])).toEqual([
      ['2026-03-21', 'Duplicate import', '999.0000', 'expense'],
      ['2026-03-09', 'Market', '30.2500', 'expense'],
    ]);
    expect([result.page, result.page_size, result.total_count, result.total_pages]).toEqual([1, 2, 3, 2]);
    // 999 + 30.25 + 50: the third match is on page 2 and still counted.
    expect(result.totals).toEqual([
      { currency: 'USD', count: 3, income: '0.0000', expense: '1079.2500', net: '-1079.2500' },
    ]);
    expect(result.unmatched_names).toEqual({ categories: ['Nonexistent'] });
  });

  it('gives each transaction with names, and totals per currency', async () => {
    const one = await call('get_transactions', { merchants: ['corner shop'], tags: ['WORK'] });
    expect(one.transactions).toEqual([
      {
        id: expect.any(String),
        date: '2026-03-02',
        name: 'Weekly shop',
        amount: '50.0000',
        type: 'expense',
        currency: 'USD',
        account: 'Everyday Checking',
        category: 'Groceries',
        merchant: 'Corner Shop',
        tags: ['Work'],
        notes: null,
      },
    ]);
    const groceries = await call('get_transactions', { categories: ['Groceries'], end_date: '2026-03-31' });
    expect(groceries.totals).toEqual([
      { currency: 'EUR', count: 1, income: '0.0000', expense: '40.0000', net: '-40.0000' },
      { currency: 'USD', count: 3, income: '0.0000', expense: '1079.2500', net: '-1079.2500' },
    ]);
  });

  it('filters by type, search and amount', async () => {
    const income = await call('get_transactions', { type: 'income', search: 'sal' });
    expect(income.transactions.map((t: any) => [t.name, t.amount, t.type])).toEqual([
      ['Salary', '2000.0000', 'income'],
    ]);
    expect(income.totals).toEqual([
      { currency: 'USD', count: 1, income: '2000.0000', expense: '0.0000', net: '2000.0000' },
    ]);
    const mid = await call('get_transactions', { min_amount: 20, max_amount: 50, accounts: ['Everyday Checking'] });
    expect(mid.transactions.map((t: any) => t.name)).toEqual(['Pizza night', 'Market', 'Weekly shop']);
  });
});

describe('transfers in the tools', () => {
  it('are neither income nor expense: get_transactions lists them as type transfer and leaves them out of totals', async () => {
    const transfers = await call('get_transactions', { type: 'transfer' });
    // One statement wrote both sides; the inflow was created last, so it comes first.
    expect(transfers.transactions.map((t: any) => [t.date, t.name, t.amount, t.type, t.account])).toEqual([
      ['2026-03-25', 'Payment from Everyday Checking', '120.0000', 'transfer', 'Travel Card'],
      ['2026-03-25', 'Payment to Travel Card', '120.0000', 'transfer', 'Everyday Checking'],
    ]);
    expect(transfers.totals).toEqual([
      { currency: 'USD', count: 2, income: '0.0000', expense: '0.0000', net: '0.0000' },
    ]);
    const card = await call('get_transactions', { accounts: ['Travel Card'] });
    // The 120 train tickets; the 120 payment is counted but is no income.
    expect(card.totals).toEqual([
      { currency: 'USD', count: 2, income: '0.0000', expense: '120.0000', net: '-120.0000' },
    ]);
    const expenses = await call('get_transactions', { type: 'expense', accounts: ['Everyday Checking'] });
    expect(expenses.transactions.map((t: any) => t.name)).not.toContain('Payment to Travel Card');
  });
});

describe('get_spending_by_category', () => {
  it('sums expenses per category and currency, largest first, without excluded entries and transfers', async () => {
    const result = await call('get_spending_by_category', { start_date: '2026-03-01', end_date: '2026-03-31' });
    expect(result.currencies).toEqual([
      {
        currency: 'EUR',
        expense: '40.0000',
        income: '0.0000',
        categories: [{ category: 'Groceries', category_id: expect.any(String), amount: '40.0000', transactions: 1 }],
      },
      {
        currency: 'USD',
        expense: '227.7500', // 120 + 80.25 + 20 + 7.5: not the excluded 999 nor the 120 card payment
        income: '2000.0000',
        categories: [
          { category: 'Travel', category_id: expect.any(String), amount: '120.0000', transactions: 1 },
          { category: 'Groceries', category_id: expect.any(String), amount: '80.2500', transactions: 2 },
          { category: 'Dining', category_id: expect.any(String), amount: '20.0000', transactions: 1 },
          { category: 'Uncategorized', category_id: null, amount: '7.5000', transactions: 1 },
        ],
      },
    ]);
  });

  it('covers only the period', async () => {
    const april = await call('get_spending_by_category', { start_date: '2026-04-01', end_date: '2026-04-30' });
    expect(april.currencies).toEqual([
      {
        currency: 'USD',
        expense: '10.0000',
        income: '0.0000',
        categories: [{ category: 'Dining', category_id: expect.any(String), amount: '10.0000', transactions: 1 }],
      },
    ]);
  });
});

describe('get_balance_sheet', () => {
  it("totals assets, liabilities and net worth in the family's currency, naming a missing rate, without disabled accounts", async () => {
    const summary = (result: any) =>
      result.groups.map((g: any) => [g.account_type, g.total_cents, g.accounts.map((a: any) => [a.name, a.converted_balance_cents])]); // prettier-ignore
    const before = await call('get_balance_sheet', {});
    // 5340 + 2762.25 in USD (the card paid in full: 0 owed); the 460 EUR have no rate into USD yet.
    expect(before).toMatchObject({
      currency: 'USD',
      assets: '$8,102.25',
      assets_cents: 810225,
      liabilities_cents: 0,
      net_worth_cents: 810225,
      complete: false,
    });
    expect(before.missing_exchange_rates.map((m: any) => [m.from, m.to])).toEqual([['EUR', 'USD']]);
    expect(summary(before)).toEqual([
      [
        'depository',
        276225,
        [
          ['Euro Savings', null],
          ['Everyday Checking', 276225],
        ],
      ],
      ['investment', 534000, [['Brokerage', 534000]]],
      ['credit_card', 0, [['Travel Card', 0]]],
    ]);
    const posted = await server.api.call('createExchangeRates', {
      key: household.writeKey,
      body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: context.today, rate: 1.1 }] },
    });
    expect(posted.status).toBe(200);
    await server.drainJobs();
    const after = await call('get_balance_sheet', {});
    // And 460 EUR x 1.1 = 506.
    expect(after).toMatchObject({
      assets_cents: 860825,
      liabilities_cents: 0,
      net_worth_cents: 860825,
      complete: true,
    });
    expect(summary(after)[0]).toEqual([
      'depository',
      326825,
      [
        ['Euro Savings', 50600],
        ['Everyday Checking', 276225],
      ],
    ]);
  });
});

describe('get_holdings', () => {
  it('gives the positions held today, sold-out ones left out', async () => {
    const result = await call('get_holdings', {});
    expect(result.as_of).toBe(context.today);
    expect(
      result.holdings.map((h: any) => [h.ticker, h.qty, h.price, h.amount, h.avg_cost, h.currency, h.account]),
    ).toEqual([
      ['ABC', '15', '130.0000', '1950.0000', '110.0000', 'USD', 'Brokerage'], // cost (1000 + 650) / 15
    ]);
    expect(result.totals).toEqual([{ currency: 'USD', amount: '1950.0000' }]);
  });

  it('gives the positions on an earlier date, largest first, paged', async () => {
    const result = await call('get_holdings', { date: '2026-02-01', accounts: ['brokerage'], page_size: 1 });
    expect(result.holdings.map((h: any) => [h.ticker, h.qty, h.amount, h.valued_on])).toEqual([
      ['ABC', '10', '1000.0000', '2026-01-10'],
    ]);
    expect([result.total_count, result.total_pages]).toEqual([2, 2]);
    expect(result.totals).toEqual([{ currency: 'USD', amount: '1200.0000' }]); // 1000 + 4 x 50
    const second = await call('get_holdings', { date: '2026-02-01', page: 2, page_size: 1 });
    expect(second.holdings.map((h: any) => [h.ticker, h.qty, h.amount])).toEqual([['XYZ', '4', '200.0000']]);
  });
});

describe('bad arguments are answered, never thrown', () => {
  it.each([
    ['an unknown property', 'get_accounts', '{"account_id":"x"}', 'account_id'],
    ['a wrong type (no coercion)', 'get_transactions', '{"page":"2"}', 'page'],
    ['a page size above 100', 'get_transactions', '{"page_size":1000}', 'page_size'],
    ['an impossible date', 'get_holdings', '{"date":"2026-02-30"}', 'date'],
    ['year 0', 'get_transactions', '{"start_date":"0000-01-01"}', 'start_date'],
    ['a missing required date', 'get_spending_by_category', '{"start_date":"2026-03-01"}', 'end_date'],
    [
      'an end before the start',
      'get_spending_by_category',
      '{"start_date":"2026-03-31","end_date":"2026-03-01"}',
      'end_date',
    ],
    ['max below min', 'get_transactions', '{"min_amount":50,"max_amount":10}', 'max_amount'],
    ['too many names', 'get_transactions', JSON.stringify({ accounts: Array(21).fill('a') }), 'accounts'],
  ])('%s', async (_, name, args, property) => {
    const outcome = await runTool(context, name, args);
    expect(outcome.arguments).toEqual(JSON.parse(args));
    expect(outcome.result).toEqual({
      error: 'invalid_arguments',
      message: expect.any(String),
      hint: expect.any(String),
    });
    expect(outcome.result.message).toContain(property);
  });

  it('keeps text that is not a JSON object as raw, cut to 2,000 characters', async () => {
    const long = `{"page": ${'9'.repeat(5000)}`;
    const outcome = await runTool(context, 'get_transactions', long);
    expect(outcome.arguments).toEqual({ raw: long.slice(0, 2000) });
    expect(outcome.result.error).toBe('invalid_arguments');
    for (const text of ['not json', '[1]', 'null', '"text"']) {
      const answer = await runTool(context, 'get_accounts', text);
      expect(answer).toEqual({
        arguments: { raw: text },
        result: expect.objectContaining({ error: 'invalid_arguments' }),
      });
    }
  });

  it('answers an unknown tool with the names of the known ones', async () => {
    const outcome = await runTool(context, 'drop_tables', '{"all":true}');
    expect(outcome.arguments).toEqual({ all: true });
    expect(outcome.result).toMatchObject({ error: 'unknown_tool', hint: expect.stringContaining('get_accounts') });
  });

  it('lets database errors through to the job', async () => {
    const broken: ToolContext = { ...context, db: { query: () => Promise.reject(new Error('connection lost')) } };
    await expect(runTool(broken, 'get_accounts', '{}')).rejects.toThrow('connection lost');
  });
});

describe('isolation between households', () => {
  /** Throws if anything of the other household shows in an answer. */
  function expectNothingOfTheOther(result: unknown) {
    const text = JSON.stringify(result);
    for (const id of otherIds) expect(text).not.toContain(id);
    for (const figure of ['777.77', '10000.0000', '555.55', '444.44', 'Secret', 'Hidden', 'Other groceries']) {
      expect(text).not.toContain(figure);
    }
  }

  it('gives each household its own accounts', async () => {
    const theirs = await call('get_accounts', {}, otherContext);
    expect(theirs.accounts.map((a: any) => a.name)).toEqual(['Everyday Checking', 'Secret Brokerage', 'Secret Stash']);
    expectNothingOfTheOther(await call('get_accounts', {}));
    expectNothingOfTheOther(await call('get_balance_sheet', {}));
    expectNothingOfTheOther(
      await call('get_spending_by_category', { start_date: '2000-01-01', end_date: '2100-12-31' }),
    );
  });

  it("never resolves the other household's names or ids", async () => {
    const foreign = {
      accounts: ['Secret Stash', 'Secret Brokerage', ...otherIds],
      categories: ['Hidden Category', ...otherIds],
      merchants: ['Secret Merchant'],
      tags: ['Secret Tag'],
    };
    for (const kind of ['accounts', 'categories', 'merchants', 'tags'] as const) {
      const result = await call('get_transactions', { [kind]: foreign[kind] });
      expect(result.transactions).toEqual([]);
      expect(result.total_count).toBe(0);
      expect(result.unmatched_names[kind]).toEqual(foreign[kind]);
    }
    const holdings = await call('get_holdings', { accounts: foreign.accounts });
    expect(holdings.holdings).toEqual([]);
    expect(holdings.unmatched_names.accounts).toEqual(foreign.accounts);
  });

  it('matches a name both households use to this household only', async () => {
    const result = await call('get_transactions', { accounts: ['Everyday Checking'], categories: ['Groceries'] });
    expect(result.transactions.map((t: any) => t.name)).toEqual(['Duplicate import', 'Market', 'Weekly shop']);
    expectNothingOfTheOther(result);
    expectNothingOfTheOther(await call('get_transactions', { search: 'groceries', page_size: 100 }));
    const holdings = await call('get_holdings', {});
    expect(holdings.holdings.map((h: any) => [h.ticker, h.qty])).toEqual([['ABC', '15']]);
    expectNothingOfTheOther(holdings);
  });
});

describe('tool definitions', () => {
  it('offers every tool in the chat-completions format with closed, bounded parameters', () => {
    const definitions = toolDefinitions();
    expect(definitions.map((d) => d.function.name)).toEqual([
      'get_accounts',
      'get_transactions',
      'get_spending_by_category',
      'get_balance_sheet',
      'get_holdings',
    ]);
    const unbounded = (schema: any): boolean => {
      if (schema.enum) return false;
      if (schema.type === 'string') return !(schema.maxLength || schema.pattern);
      if (schema.type === 'array') return schema.maxItems === undefined || unbounded(schema.items);
      if (schema.type === 'integer' || schema.type === 'number')
        return schema.minimum === undefined || schema.maximum === undefined;
      return true;
    };
    for (const { type, function: fn } of definitions) {
      expect(type).toBe('function');
      const parameters = fn.parameters as any;
      expect(parameters).toMatchObject({ type: 'object', additionalProperties: false });
      for (const [property, schema] of Object.entries(parameters.properties)) {
        expect(unbounded(schema), `${fn.name}.${property}`).toBe(false);
      }
    }
  });
});
