import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import {
  createFixtures,
  createTransaction,
  rowCounts,
  storedTransaction,
  type Fixtures,
  type TransactionData,
} from '../support/transactions-fixtures.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let fx: Fixtures;
let otherFx: Fixtures;
let otherTx: TransactionData;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  fx = await createFixtures(server, household.writeKey);
  otherFx = await createFixtures(server, other.writeKey);
  otherTx = await createTransaction(server, other.writeKey, {
    account_id: otherFx.accounts.checking.id,
    date: '2024-03-01',
    amount: 9,
    name: 'Their coffee',
    tag_ids: [otherFx.tags.work.id],
  });
});
afterAll(() => server?.close());

/** A fresh transaction of `household` with category, merchant, notes and two tags: each test owns its own. */
function fresh(overrides: Record<string, unknown> = {}): Promise<TransactionData> {
  return createTransaction(server, household.writeKey, {
    account_id: fx.accounts.checking.id,
    date: '2024-03-27',
    amount: 12.5,
    name: 'Blue Bottle Coffee',
    notes: 'flat white',
    category_id: fx.categories.dining.id,
    merchant_id: fx.merchants.blueBottle.id,
    tag_ids: [fx.tags.reimbursable.id, fx.tags.work.id],
    ...overrides,
  });
}

/** PATCHes `{transaction}`; `key` defaults to the write key only when the argument is left out (not when it is undefined). */
async function update(id: string, transaction: unknown, ...rest: [key?: string]) {
  const key = rest.length ? rest[0] : household.writeKey;
  return server.api.call('updateTransaction', { key, params: { id }, body: { transaction } });
}

async function updated(id: string, transaction: unknown): Promise<TransactionData> {
  const response = await update(id, transaction);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as TransactionData;
}

/** Everything but the update timestamp, to compare a transaction before and after a change. */
function stable(data: TransactionData) {
  const { updated_at: _ignored, ...rest } = data;
  return rest;
}

const tagIds = (data: TransactionData) => data.tags.map((tag) => tag.id).sort();

describe('getTransaction', () => {
  it('200 with the transaction, for a read key', async () => {
    const created = await fresh();
    const response = await server.api.call('getTransaction', { key: household.readKey, params: { id: created.id } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(created);
  });

  it('200 for a read_write key as well', async () => {
    const created = await fresh();
    const response = await server.api.call('getTransaction', { key: household.writeKey, params: { id: created.id } });
    expect(response.status).toBe(200);
    expect(response.body.data.id).toBe(created.id);
  });

  it("another family's transaction -> 404 not_found", async () => {
    const response = await server.api.call('getTransaction', { key: household.readKey, params: { id: otherTx.id } });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not_found', message: 'Transaction not found' });
  });

  it('the other family sees its own transaction', async () => {
    const response = await server.api.call('getTransaction', { key: other.readKey, params: { id: otherTx.id } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(otherTx);
  });

  it('an unknown id -> 404', async () => {
    const response = await server.api.call('getTransaction', { key: household.readKey, params: { id: randomUUID() } });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('not_found');
  });

  it('a malformed id -> 404 (not 400 or 422)', async () => {
    const response = await server.api.call('getTransaction', { key: household.readKey, params: { id: 'not-a-uuid' } });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not_found', message: 'Transaction not found' });
  });

  it('the id of another kind of record (an account) -> 404', async () => {
    const response = await server.api.call('getTransaction', {
      key: household.readKey,
      params: { id: fx.accounts.checking.id },
    });
    expect(response.status).toBe(404);
  });

  it('no key -> 401', async () => {
    const created = await fresh();
    const response = await server.api.call('getTransaction', { params: { id: created.id } });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
  });

  it('an unknown key -> 401', async () => {
    const created = await fresh();
    const response = await server.api.call('getTransaction', {
      key: randomBytes(32).toString('hex'),
      params: { id: created.id },
    });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('Access token or API key is invalid, expired, or missing');
  });
});

describe('updateTransaction: changes', () => {
  it('name only: the name changes and every other field is kept', async () => {
    const created = await fresh();
    const data = await updated(created.id, { name: 'Team coffee' });
    expect(stable(data)).toEqual({ ...stable(created), name: 'Team coffee' });
    expect((await storedTransaction(server, created.id))!.name).toBe('Team coffee');
  });

  it('the change is visible on a later read', async () => {
    const created = await fresh();
    const data = await updated(created.id, { notes: 'to expense' });
    const shown = await server.api.call('getTransaction', { key: household.readKey, params: { id: created.id } });
    expect(shown.body.data).toEqual(data);
    expect(shown.body.data.notes).toBe('to expense');
  });

  it('updated_at moves forward, created_at stays', async () => {
    const created = await fresh();
    const data = await updated(created.id, { name: 'Later' });
    expect(data.created_at).toBe(created.created_at);
    expect(Date.parse(data.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
  });

  it('description alone renames', async () => {
    const created = await fresh();
    const data = await updated(created.id, { description: 'Described' });
    expect(data.name).toBe('Described');
  });

  it('date only', async () => {
    const created = await fresh();
    const data = await updated(created.id, { date: '2024-01-31' });
    expect(stable(data)).toEqual({ ...stable(created), date: '2024-01-31' });
  });

  it('notes null clears the notes', async () => {
    const created = await fresh();
    const data = await updated(created.id, { notes: null });
    expect(data.notes).toBeNull();
    expect((await storedTransaction(server, created.id))!.notes).toBeNull();
  });

  it('category_id changes the category; null clears it', async () => {
    const created = await fresh();
    const moved = await updated(created.id, { category_id: fx.categories.travel.id });
    expect(moved.category).toEqual({ id: fx.categories.travel.id, name: 'Travel', color: '#3B82F6', icon: 'plane' });
    const cleared = await updated(created.id, { category_id: null });
    expect(cleared.category).toBeNull();
    expect((await storedTransaction(server, created.id))!.category_id).toBeNull();
  });

  it('merchant_id null clears the merchant and keeps the category', async () => {
    const created = await fresh();
    const data = await updated(created.id, { merchant_id: null });
    expect(data.merchant).toBeNull();
    expect(data.category).toEqual(created.category);
  });

  it('currency changes the currency and its formatting', async () => {
    const created = await fresh();
    const data = await updated(created.id, { currency: 'EUR' });
    expect(data).toMatchObject({ currency: 'EUR', amount: '€12.50', amount_cents: 1250 });
  });

  it('amount without nature is stored as sent (a positive amount on an income makes it an expense)', async () => {
    const created = await fresh({ amount: 50, nature: 'income' });
    expect(created.signed_amount_cents).toBe(5000);
    const data = await updated(created.id, { amount: 60 });
    expect(data).toMatchObject({
      amount: '$60.00',
      amount_cents: 6000,
      signed_amount_cents: -6000,
      classification: 'expense',
    });
    expect((await storedTransaction(server, created.id))!.amount).toBe('60.0000');
  });

  it('nature alone re-signs the stored amount (expense -> income)', async () => {
    const created = await fresh();
    const data = await updated(created.id, { nature: 'income' });
    expect(data).toMatchObject({
      amount: '-$12.50',
      amount_cents: 1250,
      signed_amount_cents: 1250,
      classification: 'income',
    });
    expect((await storedTransaction(server, created.id))!.amount).toBe('-12.5000');
  });

  it('nature alone re-signs the stored amount (income -> outflow)', async () => {
    const created = await fresh({ amount: 30, nature: 'inflow' });
    const data = await updated(created.id, { nature: 'outflow' });
    expect(data).toMatchObject({ signed_amount_cents: -3000, classification: 'expense' });
  });

  it('amount with nature: the nature decides the sign', async () => {
    const created = await fresh();
    const data = await updated(created.id, { amount: 20, nature: 'inflow' });
    expect(data).toMatchObject({ amount: '-$20.00', signed_amount_cents: 2000, classification: 'income' });
  });

  it('tag_ids omitted keeps the tags', async () => {
    const created = await fresh();
    const before = await rowCounts(server);
    const data = await updated(created.id, { name: 'Renamed' });
    expect(data.tags).toEqual(created.tags);
    expect((await storedTransaction(server, created.id))!.tag_ids).toEqual(tagIds(created));
    expect((await rowCounts(server)).taggings).toBe(before.taggings);
  });

  it('tag_ids [] clears the tags and their rows', async () => {
    const created = await fresh();
    const before = await rowCounts(server);
    const data = await updated(created.id, { tag_ids: [] });
    expect(data.tags).toEqual([]);
    expect((await storedTransaction(server, created.id))!.tag_ids).toEqual([]);
    expect((await rowCounts(server)).taggings).toBe(before.taggings - 2);
  });

  it('a new tag_ids list replaces the tags', async () => {
    const created = await fresh();
    const before = await rowCounts(server);
    const data = await updated(created.id, { tag_ids: [fx.tags.vacation.id, fx.tags.work.id] });
    expect(data.tags).toEqual([
      { id: fx.tags.vacation.id, name: 'Vacation', color: '#F59E0B' },
      { id: fx.tags.work.id, name: 'Work', color: '#6366F1' },
    ]);
    expect((await storedTransaction(server, created.id))!.tag_ids).toEqual(
      [fx.tags.vacation.id, fx.tags.work.id].sort(),
    );
    expect((await rowCounts(server)).taggings).toBe(before.taggings);
  });

  it('an empty transaction object changes nothing', async () => {
    const created = await fresh();
    const data = await updated(created.id, {});
    expect(stable(data)).toEqual(stable(created));
  });

  it('the account cannot be changed: 422 at account_id', async () => {
    const created = await fresh();
    const response = await update(created.id, { account_id: fx.accounts.savings.id, name: 'Moved?' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { path: '/body/transaction/account_id', message: 'account_id cannot be sent here' },
    ]);
    expect((await storedTransaction(server, created.id))!.name).toBe(created.name);
    expect((await storedTransaction(server, created.id))!.account_id).toBe(fx.accounts.checking.id);
  });
});

describe('updateTransaction: refused, row unchanged', () => {
  /** Sends a bad update and checks the stored rows of the transaction did not move. */
  async function refused(transaction: unknown, options: { key?: string; raw?: string; id?: string } = {}) {
    const created = await fresh();
    const id = options.id ?? created.id;
    const stored = await storedTransaction(server, created.id);
    const counts = await rowCounts(server);
    const response =
      options.raw !== undefined
        ? await server.api.request('PATCH', `/api/v1/transactions/${id}`, {
            key: options.key ?? household.writeKey,
            body: options.raw,
          })
        : await update(id, transaction, 'key' in options ? options.key : household.writeKey);
    expect(await storedTransaction(server, created.id)).toEqual(stored);
    expect(await rowCounts(server)).toEqual(counts);
    const shown = await server.api.call('getTransaction', { key: household.readKey, params: { id: created.id } });
    expect(shown.body.data).toEqual(created);
    return response;
  }

  async function expect422At(transaction: unknown, path: string) {
    const response = await refused(transaction);
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error).toBe('validation_failed');
    expect(response.body.errors.map((error: { path?: string }) => error.path)).toContain(path);
  }

  it('a blank name -> 422 at /body/transaction/name', async () => {
    await expect422At({ name: '' }, '/body/transaction/name');
  });

  it('name null -> 422 at /body/transaction/name', async () => {
    await expect422At({ name: null }, '/body/transaction/name');
  });

  it('amount as a string -> 422 at /body/transaction/amount', async () => {
    await expect422At({ amount: 'twelve' }, '/body/transaction/amount');
  });

  it('an impossible date -> 422 at /body/transaction/date', async () => {
    await expect422At({ date: '2024-02-30' }, '/body/transaction/date');
  });

  it('date 0000-01-01 (no year zero in PostgreSQL) -> 422 at /body/transaction/date', async () => {
    await expect422At({ date: '0000-01-01' }, '/body/transaction/date');
  });

  it('an unknown nature -> 422 at /body/transaction/nature', async () => {
    await expect422At({ nature: 'refund' }, '/body/transaction/nature');
  });

  it('an unknown currency -> 422 at /body/transaction/currency', async () => {
    await expect422At({ currency: 'XYZ' }, '/body/transaction/currency');
  });

  it('tag_ids null -> 422 at /body/transaction/tag_ids', async () => {
    await expect422At({ tag_ids: null }, '/body/transaction/tag_ids');
  });

  it("another family's category -> 422 at /body/transaction/category_id", async () => {
    await expect422At(
      { category_id: otherFx.categories.dining.id, name: 'Should not stick' },
      '/body/transaction/category_id',
    );
  });

  it("another family's merchant -> 422 at /body/transaction/merchant_id", async () => {
    await expect422At({ merchant_id: otherFx.merchants.blueBottle.id }, '/body/transaction/merchant_id');
  });

  it("another family's tag -> 422 at its index, the tags are kept", async () => {
    await expect422At({ tag_ids: [fx.tags.vacation.id, otherFx.tags.work.id] }, '/body/transaction/tag_ids/1');
  });

  it('a valid change together with a bad one is not applied', async () => {
    await expect422At({ name: 'Partially applied?', amount: 99, date: 'yesterday' }, '/body/transaction/date');
  });

  it('no transaction wrapper -> 422 at /body/transaction', async () => {
    const response = await refused(undefined, { raw: JSON.stringify({ name: 'flat' }) });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { path?: string }) => error.path)).toContain('/body/transaction');
  });

  it('malformed JSON -> 400 bad_request', async () => {
    const response = await refused(undefined, { raw: '{"transaction": {"name": ' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('bad_request');
  });

  it('a read key -> 403 insufficient_scope', async () => {
    const response = await refused({ name: 'Read only' }, { key: household.readKey });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      error: 'insufficient_scope',
      message: "This action requires the 'read_write' scope",
    });
  });

  it('no key -> 401', async () => {
    const response = await refused({ name: 'Anonymous' }, { key: undefined });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
  });

  it('an unknown key -> 401', async () => {
    const response = await refused({ name: 'Guessing' }, { key: randomBytes(32).toString('hex') });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('Access token or API key is invalid, expired, or missing');
  });

  it("another family's key -> 404 for this family's transaction", async () => {
    const response = await refused({ name: 'Hijacked' }, { key: other.writeKey });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('not_found');
  });

  it("another family's transaction -> 404, their row unchanged", async () => {
    const before = await storedTransaction(server, otherTx.id);
    const response = await update(otherTx.id, { name: 'Hijacked' });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not_found', message: 'Transaction not found' });
    expect(await storedTransaction(server, otherTx.id)).toEqual(before);
  });

  it('an unknown id -> 404', async () => {
    const response = await update(randomUUID(), { name: 'Nobody' });
    expect(response.status).toBe(404);
  });

  it('a malformed id -> 404', async () => {
    const response = await update('not-a-uuid', { name: 'Nobody' });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('not_found');
  });
});

describe('deleteTransaction', () => {
  it('200 {data: {id, deleted: true}} and the entry, details and taggings rows are gone', async () => {
    const created = await fresh();
    const stored = (await storedTransaction(server, created.id))!;
    expect(stored.tag_ids).toHaveLength(2);
    const before = await rowCounts(server);
    const response = await server.api.call('deleteTransaction', {
      key: household.writeKey,
      params: { id: created.id },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { id: created.id, deleted: true } });
    expect(await storedTransaction(server, created.id)).toBeUndefined();
    expect(await server.query('select id from transactions where id = $1', [stored.detail_id])).toEqual([]);
    expect(await server.query('select id from taggings where taggable_id = $1', [stored.detail_id])).toEqual([]);
    expect(await rowCounts(server)).toEqual({
      entries: before.entries - 1,
      transactions: before.transactions - 1,
      taggings: before.taggings - 2,
    });
  });

  it('a deleted transaction is 404 on show and gone from the list', async () => {
    const created = await fresh({ name: 'Soon deleted' });
    await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: created.id } });
    expect(
      (await server.api.call('getTransaction', { key: household.readKey, params: { id: created.id } })).status,
    ).toBe(404);
    const listed = await server.api.call('listTransactions', {
      key: household.readKey,
      query: { search: 'Soon deleted' },
    });
    expect(listed.body.data).toEqual([]);
  });

  it('deleting twice -> 404 the second time', async () => {
    const created = await fresh();
    expect(
      (await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: created.id } })).status,
    ).toBe(200);
    const again = await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: created.id } });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: 'not_found', message: 'Transaction not found' });
  });

  it('deleting keeps the tags themselves and the other transactions', async () => {
    const keep = await fresh();
    const gone = await fresh();
    await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: gone.id } });
    expect((await storedTransaction(server, keep.id))!.tag_ids).toEqual(tagIds(keep));
    expect((await server.api.call('getTag', { key: household.readKey, params: { id: fx.tags.work.id } })).status).toBe(
      200,
    );
  });

  it("another family's transaction -> 404, their rows kept", async () => {
    const before = await storedTransaction(server, otherTx.id);
    const response = await server.api.call('deleteTransaction', {
      key: household.writeKey,
      params: { id: otherTx.id },
    });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('not_found');
    expect(await storedTransaction(server, otherTx.id)).toEqual(before);
  });

  it('an unknown id -> 404', async () => {
    const response = await server.api.call('deleteTransaction', {
      key: household.writeKey,
      params: { id: randomUUID() },
    });
    expect(response.status).toBe(404);
  });

  it('a malformed id -> 404', async () => {
    const response = await server.api.call('deleteTransaction', {
      key: household.writeKey,
      params: { id: 'not-a-uuid' },
    });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('not_found');
  });

  it('a read key -> 403 insufficient_scope, rows kept', async () => {
    const created = await fresh();
    const before = await rowCounts(server);
    const response = await server.api.call('deleteTransaction', { key: household.readKey, params: { id: created.id } });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      error: 'insufficient_scope',
      message: "This action requires the 'read_write' scope",
    });
    expect(await rowCounts(server)).toEqual(before);
    expect(await storedTransaction(server, created.id)).toBeDefined();
  });

  it('no key -> 401, rows kept', async () => {
    const created = await fresh();
    const before = await rowCounts(server);
    const response = await server.api.call('deleteTransaction', { params: { id: created.id } });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
    expect(await rowCounts(server)).toEqual(before);
  });

  it('an unknown key -> 401, rows kept', async () => {
    const created = await fresh();
    const before = await rowCounts(server);
    const response = await server.api.call('deleteTransaction', {
      key: randomBytes(32).toString('hex'),
      params: { id: created.id },
    });
    expect(response.status).toBe(401);
    expect(await rowCounts(server)).toEqual(before);
  });
});
