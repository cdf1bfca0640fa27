import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import {
  createFixtures,
  createTransaction,
  idsOf,
  type Fixtures,
  type TransactionData,
} from '../support/transactions-fixtures.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let fx: Fixtures;
let otherFx: Fixtures;
/** The seven transactions of `household`, named T1..T7 in date order (see beforeAll). */
const t: Record<string, TransactionData> = {};
let otherTx: TransactionData;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  fx = await createFixtures(server, household.writeKey);
  otherFx = await createFixtures(server, other.writeKey);
  const { checking: A, savings: B, card: C } = fx.accounts;
  const { groceries, dining, travel } = fx.categories;
  const { wholeFoods, blueBottle, airline } = fx.merchants;
  const { reimbursable, vacation, work } = fx.tags;
  const create = (fields: Record<string, unknown>) => createTransaction(server, household.writeKey, fields);
  // Created out of date order, so that the list order can only come from the dates (and, for
  // T5/T6 on the same day, from creation: T6 is created after T5 and must come first).
  t.T3 = await create({
    account_id: B.id,
    date: '2024-02-01',
    amount: 30,
    name: 'Weekly groceries',
    notes: 'organic PRODUCE',
    category_id: groceries.id,
    merchant_id: wholeFoods.id,
    tag_ids: [vacation.id],
  });
  t.T1 = await create({
    account_id: A.id,
    date: '2024-01-05',
    amount: 12.5,
    name: 'Morning coffee',
    category_id: dining.id,
    merchant_id: blueBottle.id,
    tag_ids: [reimbursable.id],
  });
  t.T7 = await create({
    account_id: A.id,
    date: '2024-03-20',
    amount: 1000,
    nature: 'income',
    name: 'Paycheck',
    notes: 'monthly',
  });
  t.T5 = await create({
    account_id: C.id,
    date: '2024-03-01',
    amount: 40,
    name: '50% off sale',
    category_id: groceries.id,
  });
  t.T6 = await create({
    account_id: C.id,
    date: '2024-03-01',
    amount: 5,
    name: 'tip_jar',
    notes: 'cash',
    category_id: dining.id,
    merchant_id: blueBottle.id,
    tag_ids: [work.id],
  });
  t.T2 = await create({
    account_id: A.id,
    date: '2024-01-10',
    amount: 50,
    nature: 'income',
    name: 'Salary bonus',
    notes: 'Q4 bonus',
  });
  t.T4 = await create({
    account_id: B.id,
    date: '2024-02-15',
    amount: 200,
    name: 'Flight to Lisbon',
    category_id: travel.id,
    merchant_id: airline.id,
    tag_ids: [vacation.id, work.id],
  });
  // Another family's transaction that matches most filters used below (same names, amounts, dates).
  otherTx = await createTransaction(server, other.writeKey, {
    account_id: otherFx.accounts.checking.id,
    date: '2024-03-01',
    amount: 40,
    name: 'Morning coffee 50% off tip_jar',
    category_id: otherFx.categories.dining.id,
    merchant_id: otherFx.merchants.blueBottle.id,
    tag_ids: [otherFx.tags.work.id],
  });
});
afterAll(() => server?.close());

const ids = (...names: string[]) => names.map((name) => t[name]!.id);

async function list(
  query?: string | Record<string, string | number | (string | number)[] | undefined>,
  key = household.readKey,
) {
  const response = await server.api.call('listTransactions', { key, query });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { data: TransactionData[]; meta: Record<string, number | null> };
}

async function listIds(query?: string | Record<string, string | number | (string | number)[] | undefined>) {
  return idsOf((await list(query)).data);
}

async function expect422(query: string | Record<string, string | number>, path: string) {
  const response = await server.api.call('listTransactions', { key: household.readKey, query });
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body.error).toBe('validation_failed');
  expect(response.body.errors.map((e: { path?: string }) => e.path)).toContain(path);
  return response;
}

describe('listTransactions: order and envelope', () => {
  it('lists every transaction of the family, date desc then created_at desc, with default meta', async () => {
    const page = await list();
    expect(idsOf(page.data)).toEqual(ids('T7', 'T6', 'T5', 'T4', 'T3', 'T2', 'T1'));
    expect(page.meta).toEqual({
      current_page: 1,
      per_page: 25,
      total_count: 7,
      total_count_exact: true,
      total_pages: 1,
      next_page: null,
      prev_page: null,
    });
  });

  it('returns each item as the full transaction object', async () => {
    const page = await list({ merchant_id: fx.merchants.airline.id });
    expect(page.data).toEqual([t.T4]);
    expect(page.data[0]).toMatchObject({
      amount: '$200.00',
      amount_cents: 20000,
      signed_amount_cents: -20000,
      classification: 'expense',
      currency: 'USD',
      account: { id: fx.accounts.savings.id, name: 'Rainy Day Savings', account_type: 'depository' },
      category: { id: fx.categories.travel.id, name: 'Travel', color: '#3B82F6', icon: 'plane' },
      merchant: { id: fx.merchants.airline.id, name: 'TAP Air Portugal' },
      tags: [
        { id: fx.tags.vacation.id, name: 'Vacation', color: '#F59E0B' },
        { id: fx.tags.work.id, name: 'Work', color: '#6366F1' },
      ],
    });
  });
});

describe('listTransactions: single-value filters', () => {
  it('account_id keeps only that account', async () => {
    expect(await listIds({ account_id: fx.accounts.checking.id })).toEqual(ids('T7', 'T2', 'T1'));
  });

  it('category_id keeps only that category', async () => {
    expect(await listIds({ category_id: fx.categories.dining.id })).toEqual(ids('T6', 'T1'));
  });

  it('merchant_id keeps only that merchant', async () => {
    expect(await listIds({ merchant_id: fx.merchants.blueBottle.id })).toEqual(ids('T6', 'T1'));
  });

  it('start_date is inclusive', async () => {
    expect(await listIds({ start_date: '2024-02-15' })).toEqual(ids('T7', 'T6', 'T5', 'T4'));
  });

  it('end_date is inclusive', async () => {
    expect(await listIds({ end_date: '2024-02-01' })).toEqual(ids('T3', 'T2', 'T1'));
  });

  it('start_date and end_date together give a closed range', async () => {
    expect(await listIds({ start_date: '2024-01-10', end_date: '2024-03-01' })).toEqual(
      ids('T6', 'T5', 'T4', 'T3', 'T2'),
    );
  });

  it('min_amount compares absolute amounts (a 50.00 income matches 40) and is inclusive', async () => {
    expect(await listIds({ min_amount: 40 })).toEqual(ids('T7', 'T5', 'T4', 'T2'));
  });

  it('max_amount compares absolute amounts and is inclusive', async () => {
    expect(await listIds({ max_amount: 30 })).toEqual(ids('T6', 'T3', 'T1'));
    // A 50.00 income is above a max of 45, whatever its stored sign.
    expect(await listIds({ max_amount: 45, type: 'income' })).toEqual([]);
  });

  it('min_amount accepts decimals', async () => {
    expect(await listIds({ min_amount: 12.5, max_amount: 12.5 })).toEqual(ids('T1'));
    expect(await listIds({ min_amount: 12.51, max_amount: 29.99 })).toEqual([]);
  });

  it('type=income keeps negative stored amounts only', async () => {
    const page = await list({ type: 'income' });
    expect(idsOf(page.data)).toEqual(ids('T7', 'T2'));
    expect(page.data.every((item) => item.classification === 'income' && item.signed_amount_cents > 0)).toBe(true);
  });

  it('type=expense keeps positive stored amounts only', async () => {
    const page = await list({ type: 'expense' });
    expect(idsOf(page.data)).toEqual(ids('T6', 'T5', 'T4', 'T3', 'T1'));
    expect(page.data.every((item) => item.classification === 'expense' && item.signed_amount_cents < 0)).toBe(true);
  });
});

describe('listTransactions: search', () => {
  it('matches the name case-insensitively', async () => {
    expect(await listIds({ search: 'LISBON' })).toEqual(ids('T4'));
  });

  it('matches the notes case-insensitively', async () => {
    expect(await listIds({ search: 'produce' })).toEqual(ids('T3'));
  });

  it('matches the merchant name case-insensitively', async () => {
    // "bottle" is in neither name nor notes: only the merchant "Blue Bottle Coffee" matches.
    expect(await listIds({ search: 'bOtTlE' })).toEqual(ids('T6', 'T1'));
  });

  it('matches name or merchant in one search', async () => {
    // T1 by its name "Morning coffee" (and merchant), T6 by its merchant only.
    expect(await listIds({ search: 'coffee' })).toEqual(ids('T6', 'T1'));
  });

  it('treats % literally', async () => {
    expect(await listIds({ search: '%' })).toEqual(ids('T5'));
  });

  it('treats _ literally', async () => {
    expect(await listIds({ search: '_' })).toEqual(ids('T6'));
  });

  it('treats a backslash and a quote literally', async () => {
    expect(await listIds({ search: '\\' })).toEqual([]);
    expect(await listIds({ search: "' or 1=1 --" })).toEqual([]);
  });

  it('finds nothing for text that is nowhere', async () => {
    const page = await list({ search: 'zzz-nothing' });
    expect(page.data).toEqual([]);
    expect(page.meta).toMatchObject({ total_count: 0, total_pages: 0, next_page: null, prev_page: null });
  });
});

describe('listTransactions: array filters', () => {
  it('account_ids[] with brackets, repeated', async () => {
    const { checking, savings } = fx.accounts;
    expect(await listIds(`account_ids[]=${checking.id}&account_ids[]=${savings.id}`)).toEqual(
      ids('T7', 'T4', 'T3', 'T2', 'T1'),
    );
  });

  it('account_ids without brackets, single', async () => {
    expect(await listIds(`account_ids=${fx.accounts.savings.id}`)).toEqual(ids('T4', 'T3'));
  });

  it('account_ids without brackets, repeated', async () => {
    const { checking, card } = fx.accounts;
    expect(await listIds(`account_ids=${checking.id}&account_ids=${card.id}`)).toEqual(
      ids('T7', 'T6', 'T5', 'T2', 'T1'),
    );
  });

  it('account_ids[] with brackets, single', async () => {
    expect(await listIds(`account_ids[]=${fx.accounts.card.id}`)).toEqual(ids('T6', 'T5'));
  });

  it('category_ids[] with brackets', async () => {
    const { dining, travel } = fx.categories;
    expect(await listIds(`category_ids[]=${dining.id}&category_ids[]=${travel.id}`)).toEqual(ids('T6', 'T4', 'T1'));
  });

  it('category_ids without brackets', async () => {
    expect(await listIds(`category_ids=${fx.categories.groceries.id}`)).toEqual(ids('T5', 'T3'));
  });

  it('merchant_ids[] with brackets', async () => {
    const { wholeFoods, airline } = fx.merchants;
    expect(await listIds(`merchant_ids[]=${wholeFoods.id}&merchant_ids[]=${airline.id}`)).toEqual(ids('T4', 'T3'));
  });

  it('merchant_ids without brackets', async () => {
    expect(await listIds(`merchant_ids=${fx.merchants.blueBottle.id}`)).toEqual(ids('T6', 'T1'));
  });

  it('tag_ids[] with brackets keeps transactions with any of the tags, each once', async () => {
    const { reimbursable, work } = fx.tags;
    const page = await list(`tag_ids[]=${reimbursable.id}&tag_ids[]=${work.id}`);
    expect(idsOf(page.data)).toEqual(ids('T6', 'T4', 'T1'));
    expect(page.meta.total_count).toBe(3);
  });

  it('tag_ids without brackets', async () => {
    expect(await listIds(`tag_ids=${fx.tags.vacation.id}`)).toEqual(ids('T4', 'T3'));
  });

  it('accepts 100 ids as account_ids[] (the contract maximum; a query parser default would stop at 20)', async () => {
    const many = [fx.accounts.checking.id, ...Array.from({ length: 99 }, () => randomUUID())];
    expect(await listIds(many.map((id) => `account_ids[]=${id}`).join('&'))).toEqual(ids('T7', 'T2', 'T1'));
  });

  it('accepts 100 ids as repeated account_ids', async () => {
    const many = [fx.accounts.checking.id, ...Array.from({ length: 99 }, () => randomUUID())];
    expect(await listIds(many.map((id) => `account_ids=${id}`).join('&'))).toEqual(ids('T7', 'T2', 'T1'));
  });

  it('refuses 101 ids with 422 at /query/account_ids', async () => {
    const many = Array.from({ length: 101 }, () => randomUUID());
    await expect422(many.map((id) => `account_ids[]=${id}`).join('&'), '/query/account_ids');
  });

  it('an id of another family in an array filter matches nothing', async () => {
    expect(await listIds(`account_ids[]=${otherFx.accounts.checking.id}`)).toEqual([]);
    expect(await listIds(`tag_ids=${otherFx.tags.work.id}`)).toEqual([]);
  });
});

describe('listTransactions: combined filters', () => {
  it('account_id, type and min_amount AND together', async () => {
    expect(await listIds({ account_id: fx.accounts.checking.id, type: 'income', min_amount: 100 })).toEqual(ids('T7'));
  });

  it('category_ids, start_date and max_amount AND together', async () => {
    const { groceries, dining } = fx.categories;
    expect(
      await listIds(`category_ids[]=${groceries.id}&category_ids[]=${dining.id}&start_date=2024-02-01&max_amount=30`),
    ).toEqual(ids('T6', 'T3'));
  });

  it('account_id and account_ids AND together', async () => {
    const { checking, savings } = fx.accounts;
    expect(await listIds(`account_id=${checking.id}&account_ids[]=${savings.id}`)).toEqual([]);
    expect(await listIds(`account_id=${checking.id}&account_ids[]=${checking.id}&account_ids[]=${savings.id}`)).toEqual(
      ids('T7', 'T2', 'T1'),
    );
  });

  it('search, tag_ids and end_date AND together', async () => {
    expect(await listIds(`search=coffee&tag_ids[]=${fx.tags.work.id}&end_date=2024-03-01`)).toEqual(ids('T6'));
  });
});

describe('listTransactions: pagination', () => {
  it('first page', async () => {
    const page = await list({ per_page: 3 });
    expect(idsOf(page.data)).toEqual(ids('T7', 'T6', 'T5'));
    expect(page.meta).toEqual({
      current_page: 1,
      per_page: 3,
      total_count: 7,
      total_count_exact: true,
      total_pages: 3,
      next_page: 2,
      prev_page: null,
    });
  });

  it('middle page', async () => {
    const page = await list({ per_page: 3, page: 2 });
    expect(idsOf(page.data)).toEqual(ids('T4', 'T3', 'T2'));
    expect(page.meta).toEqual({
      current_page: 2,
      per_page: 3,
      total_count: 7,
      total_count_exact: true,
      total_pages: 3,
      next_page: 3,
      prev_page: 1,
    });
  });

  it('last page', async () => {
    const page = await list({ per_page: 3, page: 3 });
    expect(idsOf(page.data)).toEqual(ids('T1'));
    expect(page.meta).toEqual({
      current_page: 3,
      per_page: 3,
      total_count: 7,
      total_count_exact: true,
      total_pages: 3,
      next_page: null,
      prev_page: 2,
    });
  });

  it('a page past the end is empty with correct meta', async () => {
    const page = await list({ per_page: 3, page: 4 });
    expect(page.data).toEqual([]);
    expect(page.meta).toEqual({
      current_page: 4,
      per_page: 3,
      total_count: 7,
      total_count_exact: true,
      total_pages: 3,
      next_page: null,
      prev_page: 3,
    });
  });

  it('per_page 100 (the maximum) and per_page 1 are accepted', async () => {
    expect((await list({ per_page: 100 })).meta).toMatchObject({ per_page: 100, total_count: 7, total_pages: 1 });
    expect((await list({ per_page: 1, page: 7 })).data.map((item) => item.id)).toEqual(ids('T1'));
  });

  it('total_count counts the filtered set (type)', async () => {
    const page = await list({ type: 'expense', per_page: 2, page: 2 });
    expect(idsOf(page.data)).toEqual(ids('T4', 'T3'));
    expect(page.meta).toEqual({
      current_page: 2,
      per_page: 2,
      total_count: 5,
      total_count_exact: true,
      total_pages: 3,
      next_page: 3,
      prev_page: 1,
    });
  });

  it('total_count counts the filtered set (search on merchant name)', async () => {
    const page = await list({ search: 'bottle', per_page: 1 });
    expect(idsOf(page.data)).toEqual(ids('T6'));
    expect(page.meta).toEqual({
      current_page: 1,
      per_page: 1,
      total_count: 2,
      total_count_exact: true,
      total_pages: 2,
      next_page: 2,
      prev_page: null,
    });
  });

  it('total_count counts the filtered set (tags, no duplicates)', async () => {
    const { vacation, work } = fx.tags;
    const page = await list(`tag_ids[]=${vacation.id}&tag_ids[]=${work.id}&per_page=2`);
    expect(idsOf(page.data)).toEqual(ids('T6', 'T4'));
    expect(page.meta).toEqual({
      current_page: 1,
      per_page: 2,
      total_count: 3,
      total_count_exact: true,
      total_pages: 2,
      next_page: 2,
      prev_page: null,
    });
  });
});

describe('listTransactions: invalid query', () => {
  it('per_page 0 -> 422 at /query/per_page', async () => {
    await expect422({ per_page: 0 }, '/query/per_page');
  });

  it('per_page 101 -> 422 at /query/per_page', async () => {
    await expect422({ per_page: 101 }, '/query/per_page');
  });

  it('page 0 -> 422 at /query/page', async () => {
    await expect422({ page: 0 }, '/query/page');
  });

  it('negative page -> 422 at /query/page', async () => {
    await expect422({ page: -1 }, '/query/page');
  });

  it('non-integer per_page (text) -> 422 at /query/per_page', async () => {
    await expect422({ per_page: 'ten' }, '/query/per_page');
  });

  it('non-integer page (decimal) -> 422 at /query/page', async () => {
    await expect422({ page: 1.5 }, '/query/page');
  });

  it('start_date 2024-02-30 -> 422 at /query/start_date', async () => {
    await expect422({ start_date: '2024-02-30' }, '/query/start_date');
  });

  it('end_date "yesterday" -> 422 at /query/end_date', async () => {
    await expect422({ end_date: 'yesterday' }, '/query/end_date');
  });

  it('unknown type -> 422 at /query/type', async () => {
    const response = await expect422({ type: 'refund' }, '/query/type');
    expect(response.body.errors.find((e: { path?: string }) => e.path === '/query/type').message).toMatch(
      /income.*expense.*transfer/,
    );
  });

  it('non-numeric min_amount -> 422 at /query/min_amount', async () => {
    await expect422({ min_amount: 'lots' }, '/query/min_amount');
  });

  it('malformed account_id -> 422 at /query/account_id', async () => {
    await expect422({ account_id: 'not-a-uuid' }, '/query/account_id');
  });

  it('min_amount that is not a finite number (1e400) -> 422 at /query/min_amount', async () => {
    await expect422('min_amount=1e400', '/query/min_amount');
  });

  it('max_amount=-Infinity -> 422 at /query/max_amount', async () => {
    await expect422('max_amount=-Infinity', '/query/max_amount');
  });

  it('a page above the contract bound (1e20) -> 422 at /query/page', async () => {
    await expect422('page=100000000000000000000', '/query/page');
  });

  it('start_date 0000-01-01 (no year zero in PostgreSQL) -> 422 at /query/start_date', async () => {
    await expect422({ start_date: '0000-01-01' }, '/query/start_date');
  });

  it('search with a NUL character -> 422 at /query/search', async () => {
    await expect422({ search: 'tip\u0000jar' }, '/query/search');
  });

  it('several problems are each reported', async () => {
    const response = await expect422({ per_page: 101, start_date: '2024-13-01' }, '/query/per_page');
    expect(response.body.errors.map((e: { path?: string }) => e.path)).toEqual(
      expect.arrayContaining(['/query/per_page', '/query/start_date']),
    );
  });
});

describe('listTransactions: credentials and isolation', () => {
  it('a read key may list', async () => {
    expect((await list(undefined, household.readKey)).meta.total_count).toBe(7);
  });

  it('a read_write key may list', async () => {
    expect((await list(undefined, household.writeKey)).meta.total_count).toBe(7);
  });

  it('no key -> 401', async () => {
    const response = await server.api.call('listTransactions', {});
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
  });

  it('an unknown key -> 401', async () => {
    const response = await server.api.call('listTransactions', { key: randomBytes(32).toString('hex') });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
  });

  it('a malformed key -> 401', async () => {
    const response = await server.api.call('listTransactions', { key: 'not-a-key' });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('Access token or API key is invalid, expired, or missing');
  });

  it('an invalid bearer token -> 401 even with a valid key', async () => {
    const response = await server.api.call('listTransactions', {
      key: household.readKey,
      headers: { authorization: `Bearer ${randomUUID()}` },
    });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('Access token or API key is invalid, expired, or missing');
  });

  it('each family sees only its own transactions', async () => {
    const mine = await list(undefined, household.readKey);
    expect(idsOf(mine.data)).not.toContain(otherTx.id);
    const theirs = await list(undefined, other.readKey);
    expect(idsOf(theirs.data)).toEqual([otherTx.id]);
    expect(theirs.meta.total_count).toBe(1);
  });

  it("filters that match another family's transaction do not leak it", async () => {
    expect(await listIds({ search: 'tip_jar' })).toEqual(ids('T6'));
    expect(await listIds({ account_id: otherFx.accounts.checking.id })).toEqual([]);
    expect(await listIds({ merchant_id: otherFx.merchants.blueBottle.id })).toEqual([]);
    expect(await listIds({ start_date: '2024-03-01', end_date: '2024-03-01', min_amount: 40, max_amount: 40 })).toEqual(
      ids('T5'),
    );
  });
});
