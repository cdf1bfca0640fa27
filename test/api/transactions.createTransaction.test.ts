import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import { TEST_JSON_LIMIT, type TestServer } from '../support/test-server.ts';
import {
  createFixtures,
  createTransaction,
  rowCounts,
  storedTransaction,
  type Fixtures,
  type RowCounts,
} from '../support/transactions-fixtures.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let fx: Fixtures;
let otherFx: Fixtures;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  fx = await createFixtures(server, household.writeKey);
  otherFx = await createFixtures(server, other.writeKey);
});
afterAll(() => server?.close());

/** A complete, valid body; tests remove or spoil one field of it. */
function valid(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    account_id: fx.accounts.checking.id,
    date: '2024-03-27',
    amount: 12.5,
    name: 'Blue Bottle Coffee',
    ...overrides,
  };
}

function without(field: string): Record<string, unknown> {
  const body = valid();
  delete body[field];
  return body;
}

/**
 * Sends a bad create (as a body object, or a raw string) and checks that no row was written to
 * entries, transactions or taggings; returns the response for the test's own assertions.
 */
async function rejected(body: unknown, options: { key?: string; raw?: boolean } = {}) {
  const before: RowCounts = await rowCounts(server);
  const key = 'key' in options ? options.key : household.writeKey;
  const response = options.raw
    ? await server.api.request('POST', '/api/v1/transactions', { key, body: body as string })
    : await server.api.call('createTransaction', { key, body });
  expect(await rowCounts(server)).toEqual(before);
  return response;
}

function paths(response: { body: { errors: { path?: string }[] } }): (string | undefined)[] {
  return response.body.errors.map((error) => error.path);
}

async function expect422At(transaction: unknown, path: string) {
  const response = await rejected({ transaction });
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body.error).toBe('validation_failed');
  expect(paths(response)).toContain(path);
  return response;
}

describe('createTransaction: success', () => {
  it('201 with the full object: formatted amount, cents, classification and embedded records', async () => {
    const { checking } = fx.accounts;
    const { dining } = fx.categories;
    const { blueBottle } = fx.merchants;
    const { reimbursable, work } = fx.tags;
    const response = await server.api.call('createTransaction', {
      key: household.writeKey,
      body: {
        transaction: {
          account_id: checking.id,
          date: '2024-03-27',
          amount: 12.5,
          name: 'Blue Bottle Coffee',
          notes: 'flat white',
          nature: 'expense',
          category_id: dining.id,
          merchant_id: blueBottle.id,
          tag_ids: [work.id, reimbursable.id],
        },
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      id: expect.any(String),
      date: '2024-03-27',
      amount: '$12.50',
      amount_cents: 1250,
      signed_amount_cents: -1250,
      currency: 'USD',
      exchange_rate: null,
      account_amount: { amount: '$12.50', amount_cents: 1250, signed_amount_cents: -1250, currency: 'USD' },
      name: 'Blue Bottle Coffee',
      notes: 'flat white',
      external_id: null,
      source: null,
      classification: 'expense',
      transfer: null,
      account: { id: checking.id, name: 'Everyday Checking', account_type: 'depository' },
      category: { id: dining.id, name: 'Coffee Shops', color: '#A0522D', icon: 'coffee' },
      merchant: { id: blueBottle.id, name: 'Blue Bottle Coffee' },
      tags: [
        { id: reimbursable.id, name: 'Reimbursable', color: '#10B981' },
        { id: work.id, name: 'Work', color: '#6366F1' },
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('stores the entry, its details and one tagging per tag', async () => {
    const { reimbursable, work } = fx.tags;
    const before = await rowCounts(server);
    const data = await createTransaction(
      server,
      household.writeKey,
      valid({
        category_id: fx.categories.dining.id,
        merchant_id: fx.merchants.blueBottle.id,
        tag_ids: [work.id, reimbursable.id],
      }),
    );
    expect(await rowCounts(server)).toEqual({
      entries: before.entries + 1,
      transactions: before.transactions + 1,
      taggings: before.taggings + 2,
    });
    expect(await storedTransaction(server, data.id)).toMatchObject({
      account_id: fx.accounts.checking.id,
      amount: '12.5000',
      currency: 'USD',
      date: '2024-03-27',
      name: 'Blue Bottle Coffee',
      category_id: fx.categories.dining.id,
      merchant_id: fx.merchants.blueBottle.id,
      tag_ids: [reimbursable.id, work.id].sort(),
    });
  });

  it('the created transaction can be read back identically', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ tag_ids: [fx.tags.vacation.id] }));
    const shown = await server.api.call('getTransaction', { key: household.readKey, params: { id: data.id } });
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual(data);
  });

  it('without optional fields: notes, category and merchant are null, tags empty', async () => {
    const data = await createTransaction(server, household.writeKey, valid());
    expect(data).toMatchObject({ notes: null, category: null, merchant: null, tags: [] });
  });

  it('nature income stores a negative amount', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: 50, nature: 'income' }));
    expect(data).toMatchObject({
      amount: '-$50.00',
      amount_cents: 5000,
      signed_amount_cents: 5000,
      classification: 'income',
    });
    expect((await storedTransaction(server, data.id))!.amount).toBe('-50.0000');
  });

  it('nature inflow stores a negative amount, even when sent negative', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: -20, nature: 'inflow' }));
    expect(data).toMatchObject({
      amount: '-$20.00',
      amount_cents: 2000,
      signed_amount_cents: 2000,
      classification: 'income',
    });
    expect((await storedTransaction(server, data.id))!.amount).toBe('-20.0000');
  });

  it('nature expense stores a positive amount, even when sent negative', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: -8.25, nature: 'expense' }));
    expect(data).toMatchObject({
      amount: '$8.25',
      amount_cents: 825,
      signed_amount_cents: -825,
      classification: 'expense',
    });
    expect((await storedTransaction(server, data.id))!.amount).toBe('8.2500');
  });

  it('nature outflow stores a positive amount', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: 8.25, nature: 'outflow' }));
    expect(data).toMatchObject({ signed_amount_cents: -825, classification: 'expense' });
    expect((await storedTransaction(server, data.id))!.amount).toBe('8.2500');
  });

  it('no nature keeps a negative amount as sent (income)', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: -15 }));
    expect(data).toMatchObject({
      amount: '-$15.00',
      amount_cents: 1500,
      signed_amount_cents: 1500,
      classification: 'income',
    });
    expect((await storedTransaction(server, data.id))!.amount).toBe('-15.0000');
  });

  it('no nature keeps a positive amount as sent (expense)', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: 15 }));
    expect(data).toMatchObject({ signed_amount_cents: -1500, classification: 'expense' });
    expect((await storedTransaction(server, data.id))!.amount).toBe('15.0000');
  });

  it('formats amount with the stored sign everywhere it is read, as the reference renders it (issue 28)', async () => {
    const signs = (body: Record<string, unknown>) =>
      createTransaction(server, household.writeKey, valid({ name: 'Sign check', ...body }));
    const income = await signs({ amount: 3000, nature: 'income' });
    const expense = await signs({ amount: 12.5, nature: 'expense' });
    for (const [data, shown, cents, signed] of [
      [income, '-$3,000.00', 300000, 300000],
      [expense, '$12.50', 1250, -1250],
    ] as const) {
      const read = await server.api.call('getTransaction', { key: household.readKey, params: { id: data.id } });
      const listed = await server.api.call('listTransactions', {
        key: household.readKey,
        query: { search: 'Sign check' },
      });
      const inList = listed.body.data.find((item: { id: string }) => item.id === data.id);
      for (const view of [data, read.body.data, inList]) {
        expect(view).toMatchObject({ amount: shown, amount_cents: cents, signed_amount_cents: signed });
        expect(view.account_amount).toMatchObject({ amount: shown, amount_cents: cents, signed_amount_cents: signed });
      }
    }
  });

  it('groups thousands in the formatted amount', async () => {
    const data = await createTransaction(server, household.writeKey, valid({ amount: 1234567.89 }));
    expect(data).toMatchObject({ amount: '$1,234,567.89', amount_cents: 123456789 });
  });

  it('uses description as the name when name is absent', async () => {
    const data = await createTransaction(server, household.writeKey, {
      ...without('name'),
      description: 'Payroll ACME Corp',
    });
    expect(data.name).toBe('Payroll ACME Corp');
    expect((await storedTransaction(server, data.id))!.name).toBe('Payroll ACME Corp');
  });

  it('prefers name over description when both are sent', async () => {
    const data = await createTransaction(
      server,
      household.writeKey,
      valid({ name: 'The name', description: 'The description' }),
    );
    expect(data.name).toBe('The name');
  });

  it('defaults the currency to the family currency (EUR, formatted with €)', async () => {
    const euro = await createHousehold(server, { currency: 'EUR' });
    const account = await server.api.call('createAccount', {
      key: euro.writeKey,
      body: { account: { name: 'Girokonto', account_type: 'depository' } },
    });
    const data = await createTransaction(server, euro.writeKey, {
      account_id: account.body.data.id,
      date: '2024-03-27',
      amount: 12.5,
      name: 'Bäckerei',
    });
    expect(data).toMatchObject({ currency: 'EUR', amount: '€12.50', amount_cents: 1250, signed_amount_cents: -1250 });
    expect((await storedTransaction(server, data.id))!.currency).toBe('EUR');
  });

  it('JPY has no decimals: amount_cents counts yen', async () => {
    const yen = await createHousehold(server, { currency: 'JPY' });
    const account = await server.api.call('createAccount', {
      key: yen.writeKey,
      body: { account: { name: 'Futsuu', account_type: 'depository' } },
    });
    const data = await createTransaction(server, yen.writeKey, {
      account_id: account.body.data.id,
      date: '2024-03-27',
      amount: 1500,
      name: 'Ramen',
      nature: 'expense',
    });
    expect(data).toMatchObject({ currency: 'JPY', amount: '¥1,500', amount_cents: 1500, signed_amount_cents: -1500 });
  });

  it('an explicit currency overrides the family currency', async () => {
    const data = await createTransaction(
      server,
      household.writeKey,
      valid({ amount: 1500, currency: 'JPY', nature: 'income' }),
    );
    expect(data).toMatchObject({
      currency: 'JPY',
      amount: '-¥1,500',
      amount_cents: 1500,
      signed_amount_cents: 1500,
      classification: 'income',
    });
  });

  it('the same tag twice is attached once', async () => {
    const before = await rowCounts(server);
    const data = await createTransaction(
      server,
      household.writeKey,
      valid({ tag_ids: [fx.tags.work.id, fx.tags.work.id] }),
    );
    expect(data.tags.map((tag) => tag.id)).toEqual([fx.tags.work.id]);
    expect((await rowCounts(server)).taggings).toBe(before.taggings + 1);
  });

  it('null category_id and merchant_id mean none', async () => {
    const data = await createTransaction(
      server,
      household.writeKey,
      valid({ category_id: null, merchant_id: null, notes: null }),
    );
    expect(data).toMatchObject({ category: null, merchant: null, notes: null });
  });
});

describe('createTransaction: missing fields', () => {
  for (const field of ['account_id', 'date', 'amount', 'name'] as const) {
    it(`missing ${field} -> 422 at /body/transaction/${field}, nothing written`, async () => {
      const response = await expect422At(without(field), `/body/transaction/${field}`);
      expect(response.body.errors).toHaveLength(1);
    });
  }

  it('an empty transaction -> 422 naming each of the four missing fields, nothing written', async () => {
    const response = await rejected({ transaction: {} });
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('validation_failed');
    expect(paths(response).sort()).toEqual([
      '/body/transaction/account_id',
      '/body/transaction/amount',
      '/body/transaction/date',
      '/body/transaction/name',
    ]);
  });

  it('amount and name missing -> 422 naming both, nothing written', async () => {
    const body = without('amount');
    delete body.name;
    const response = await rejected({ transaction: body });
    expect(response.status).toBe(422);
    expect(paths(response).sort()).toEqual(['/body/transaction/amount', '/body/transaction/name']);
  });

  it('a blank name -> 422 at /body/transaction/name, nothing written', async () => {
    await expect422At(valid({ name: '   ' }), '/body/transaction/name');
  });

  it('a blank description without name -> 422 at /body/transaction/name, nothing written', async () => {
    await expect422At({ ...without('name'), description: '' }, '/body/transaction/name');
  });

  it('no transaction wrapper -> 422 at /body/transaction, nothing written', async () => {
    const response = await rejected(valid());
    expect(response.status).toBe(422);
    expect(paths(response)).toContain('/body/transaction');
  });
});

describe('createTransaction: wrong types and values', () => {
  it('amount as text that is not a decimal number -> 422 at /body/transaction/amount', async () => {
    await expect422At(valid({ amount: '12,50' }), '/body/transaction/amount');
  });

  it('amount as null -> 422 at /body/transaction/amount', async () => {
    await expect422At(valid({ amount: null }), '/body/transaction/amount');
  });

  it('name as a number -> 422 at /body/transaction/name', async () => {
    await expect422At(valid({ name: 42 }), '/body/transaction/name');
  });

  it('an impossible date -> 422 at /body/transaction/date', async () => {
    await expect422At(valid({ date: '2024-02-30' }), '/body/transaction/date');
  });

  it('a date that is not YYYY-MM-DD -> 422 at /body/transaction/date', async () => {
    await expect422At(valid({ date: '27/03/2024' }), '/body/transaction/date');
  });

  it('a malformed account_id -> 422 at /body/transaction/account_id', async () => {
    await expect422At(valid({ account_id: 'checking' }), '/body/transaction/account_id');
  });

  it('tag_ids not an array -> 422 at /body/transaction/tag_ids', async () => {
    await expect422At(valid({ tag_ids: fx.tags.work.id }), '/body/transaction/tag_ids');
  });

  it('a malformed tag id -> 422 at /body/transaction/tag_ids/1', async () => {
    await expect422At(valid({ tag_ids: [fx.tags.work.id, 'work'] }), '/body/transaction/tag_ids/1');
  });

  it('transaction not an object -> 422 at /body/transaction', async () => {
    await expect422At('coffee', '/body/transaction');
  });

  it('an unknown nature -> 422 at /body/transaction/nature naming the allowed values', async () => {
    const response = await expect422At(valid({ nature: 'refund' }), '/body/transaction/nature');
    const detail = response.body.errors.find((error: { path?: string }) => error.path === '/body/transaction/nature');
    expect(detail.message).toMatch(/income.*expense.*inflow.*outflow/);
  });

  it('a lower-case currency -> 422 at /body/transaction/currency', async () => {
    await expect422At(valid({ currency: 'usd' }), '/body/transaction/currency');
  });

  it('an unknown currency code -> 422 at /body/transaction/currency', async () => {
    await expect422At(valid({ currency: 'XYZ' }), '/body/transaction/currency');
  });

  it('an amount beyond numeric(19,4) -> 422 at /body/transaction/amount', async () => {
    await expect422At(valid({ amount: 1e15 }), '/body/transaction/amount');
  });

  it('date 0000-01-01 (no year zero in PostgreSQL) -> 422 at /body/transaction/date, nothing written', async () => {
    await expect422At(valid({ date: '0000-01-01' }), '/body/transaction/date');
  });

  it('a NUL character in the name -> 422 at /body/transaction/name, nothing written', async () => {
    await expect422At(valid({ name: 'Blue\u0000Bottle' }), '/body/transaction/name');
  });

  it('malformed JSON -> 400 bad_request, nothing written', async () => {
    const response = await rejected('{"transaction": ', { raw: true });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('bad_request');
  });

  it('a JSON array body -> 422, nothing written', async () => {
    const response = await rejected('[]', { raw: true });
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('validation_failed');
  });

  it('a body over the JSON limit -> 413 payload_too_large, nothing written', async () => {
    const response = await rejected({ transaction: valid({ notes: 'x'.repeat(TEST_JSON_LIMIT + 1) }) });
    expect(response.status).toBe(413);
    expect(response.body.error).toBe('payload_too_large');
  });
});

describe('createTransaction: references', () => {
  it('an unknown account -> 404 not_found, nothing written', async () => {
    const response = await rejected({ transaction: valid({ account_id: randomUUID() }) });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not_found', message: 'Account not found' });
  });

  it("another family's account -> 404 not_found, nothing written", async () => {
    const response = await rejected({ transaction: valid({ account_id: otherFx.accounts.checking.id }) });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not_found', message: 'Account not found' });
  });

  it("another family's category -> 422 at /body/transaction/category_id, nothing written", async () => {
    await expect422At(valid({ category_id: otherFx.categories.dining.id }), '/body/transaction/category_id');
  });

  it('an unknown category -> 422 at /body/transaction/category_id, nothing written', async () => {
    await expect422At(valid({ category_id: randomUUID() }), '/body/transaction/category_id');
  });

  it("another family's merchant -> 422 at /body/transaction/merchant_id, nothing written", async () => {
    await expect422At(valid({ merchant_id: otherFx.merchants.blueBottle.id }), '/body/transaction/merchant_id');
  });

  it("another family's tag among own tags -> 422 at its index, nothing written", async () => {
    await expect422At(valid({ tag_ids: [fx.tags.work.id, otherFx.tags.work.id] }), '/body/transaction/tag_ids/1');
  });

  it('an unknown tag -> 422 at /body/transaction/tag_ids/0, nothing written', async () => {
    await expect422At(valid({ tag_ids: [randomUUID()] }), '/body/transaction/tag_ids/0');
  });

  it('several foreign references are each reported', async () => {
    const response = await rejected({
      transaction: valid({
        category_id: otherFx.categories.dining.id,
        merchant_id: otherFx.merchants.blueBottle.id,
        tag_ids: [otherFx.tags.work.id],
      }),
    });
    expect(response.status).toBe(422);
    expect(paths(response).sort()).toEqual([
      '/body/transaction/category_id',
      '/body/transaction/merchant_id',
      '/body/transaction/tag_ids/0',
    ]);
  });
});

describe('createTransaction: credentials', () => {
  it('a read key -> 403 insufficient_scope, nothing written', async () => {
    const response = await rejected({ transaction: valid() }, { key: household.readKey });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      error: 'insufficient_scope',
      message: "This action requires the 'read_write' scope",
    });
  });

  it('a read key with a malformed body is still 403 (scope before body)', async () => {
    const response = await rejected('{"transaction": ', { key: household.readKey, raw: true });
    expect(response.status).toBe(403);
    expect(response.body.error).toBe('insufficient_scope');
  });

  it('no key -> 401, nothing written', async () => {
    const response = await rejected({ transaction: valid() }, { key: undefined });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
  });

  it('an unknown key -> 401, nothing written', async () => {
    const response = await rejected({ transaction: valid() }, { key: randomBytes(32).toString('hex') });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
  });

  it("the other family's key cannot book on this family's account -> 404, nothing written", async () => {
    const response = await rejected({ transaction: valid() }, { key: other.writeKey });
    expect(response.status).toBe(404);
  });
});
