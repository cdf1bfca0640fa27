import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTransactions } from '../../server/transactions/transaction.bulk-insert.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import { createFixtures, createTransaction, type Fixtures } from '../support/transactions-fixtures.ts';

/**
 * The search reads one column kept by triggers (name, notes and merchant name): whichever way a
 * transaction, its merchant or the merchant's name changes, the search must see the change.
 */
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let fx: Fixtures;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  fx = await createFixtures(server, household.writeKey);
});
afterAll(() => server?.close());

async function found(search: string, key = household.readKey): Promise<string[]> {
  const response = await server.api.call('listTransactions', { key, query: { search, per_page: 100 } });
  expect(response.status).toBe(200);
  return (response.body.data as { id: string }[]).map((item) => item.id).sort();
}

async function update(id: string, transaction: Record<string, unknown>) {
  const response = await server.api.call('updateTransaction', {
    key: household.writeKey,
    params: { id },
    body: { transaction },
  });
  expect(response.status).toBe(200);
}

/** Entries whose search column disagrees with what it is made of: must always be none. */
async function staleSearchTexts(): Promise<number> {
  const [row] = await server.query<{ n: number }>(`
    select count(*)::int as n from entries e
      left join transactions t on e.entryable_type = 'Transaction' and t.id = e.entryable_id
      left join merchants m on m.id = t.merchant_id
    where e.search_text is distinct from entry_search_text(e.name, e.notes, m.name)`);
  return row!.n;
}

const base = { date: '2024-05-02', amount: 9.5, nature: 'expense' };

describe('search follows every change', () => {
  it('finds a new transaction by its merchant, and by the new merchant after a change', async () => {
    const t = await createTransaction(server, household.writeKey, {
      ...base,
      account_id: fx.accounts.checking.id,
      name: 'Morning pick-up',
      merchant_id: fx.merchants.blueBottle.id,
    });
    expect(await found('blue bottle')).toEqual([t.id]);
    await update(t.id, { merchant_id: fx.merchants.wholeFoods.id });
    expect(await found('blue bottle')).toEqual([]);
    expect(await found('whole foods')).toEqual([t.id]);
    await update(t.id, { merchant_id: null });
    expect(await found('whole foods')).toEqual([]);
    expect(await found('pick-up')).toEqual([t.id]);
    expect(await staleSearchTexts()).toBe(0);
  });

  it('finds the new name and notes after an update, not the old ones', async () => {
    const t = await createTransaction(server, household.writeKey, {
      ...base,
      account_id: fx.accounts.savings.id,
      name: 'Hardware store',
      notes: 'hinges',
    });
    await update(t.id, { name: 'Garden centre', notes: 'tulip bulbs' });
    expect(await found('hardware')).toEqual([]);
    expect(await found('hinges')).toEqual([]);
    expect(await found('GARDEN')).toEqual([t.id]);
    expect(await found('tulip')).toEqual([t.id]);
  });

  it('follows a merchant renamed or deleted outside the API', async () => {
    const t = await createTransaction(server, household.writeKey, {
      ...base,
      account_id: fx.accounts.card.id,
      name: 'Flight',
      merchant_id: fx.merchants.airline.id,
    });
    await server.query(`update merchants set name = 'Flag Carrier Airways' where id = $1`, [fx.merchants.airline.id]);
    expect(await found('tap air')).toEqual([]);
    expect(await found('flag carrier')).toEqual([t.id]);
    await server.query(`delete from merchants where id = $1`, [fx.merchants.airline.id]);
    expect(await found('flag carrier')).toEqual([]);
    expect(await found('flight')).toEqual([t.id]);
    expect(await staleSearchTexts()).toBe(0);
  });

  it('finds rows written in bulk by their merchant and notes (the statement gives their search text)', async () => {
    const [id] = await insertTransactions(server.em(), [
      {
        familyId: household.familyId,
        accountId: fx.accounts.checking.id,
        date: '2024-05-03',
        amount: '4.2500',
        currency: 'USD',
        name: 'Bulk row',
        notes: 'Oat flat white',
        merchantId: fx.merchants.blueBottle.id,
      },
    ]);
    expect(await found('bottle coffee')).toContain(id);
    expect(await found('oat flat')).toEqual([id]);
    expect(await staleSearchTexts()).toBe(0);
  });

  it('keeps every search text right under 20 concurrent merchant and name changes', async () => {
    const t = await createTransaction(server, household.writeKey, {
      ...base,
      account_id: fx.accounts.checking.id,
      name: 'Contended',
    });
    const merchants = [fx.merchants.blueBottle.id, fx.merchants.wholeFoods.id, null];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        server.api.call('updateTransaction', {
          key: household.writeKey,
          params: { id: t.id },
          body: { transaction: n % 2 ? { merchant_id: merchants[n % 3] } : { name: `Contended ${n}` } },
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(await staleSearchTexts()).toBe(0);
  });
});

describe('search text', () => {
  it('folds case beyond ASCII', async () => {
    const t = await createTransaction(server, household.writeKey, {
      ...base,
      account_id: fx.accounts.checking.id,
      name: 'Café ÉCLAIR Straße',
    });
    expect(await found('éclair')).toEqual([t.id]);
    expect(await found('CAFÉ')).toEqual([t.id]);
  });

  it('never matches across the name and the notes', async () => {
    const t = await createTransaction(server, household.writeKey, {
      ...base,
      account_id: fx.accounts.checking.id,
      name: 'Left half',
      notes: 'right half',
    });
    expect(await found('half right')).toEqual([]);
    expect(await found('left half')).toEqual([t.id]);
  });

  it('refuses control characters with 422 at /query/search', async () => {
    for (const search of ['a\u001fb', 'line\nbreak', 'tab\there']) {
      const response = await server.api.call('listTransactions', { key: household.readKey, query: { search } });
      expect(response.status).toBe(422);
      expect(response.body.error).toBe('validation_failed');
      expect(response.body.errors.map((error: { path?: string }) => error.path)).toContain('/query/search');
    }
  });

  it('ignores an empty search', async () => {
    const all = await server.api.call('listTransactions', { key: household.readKey, query: { per_page: 1 } });
    const empty = await server.api.call('listTransactions', {
      key: household.readKey,
      query: { per_page: 1, search: '' },
    });
    expect(empty.status).toBe(200);
    expect(empty.body.meta.total_count).toBe(all.body.meta.total_count);
  });

  it('never shows another family its matches', async () => {
    expect(await found('café', other.readKey)).toEqual([]);
  });
});
