import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { filledHousehold, fillHousehold, type HouseholdData } from '../support/household-data.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let other: TestHousehold;
let otherData: HouseholdData;

beforeAll(async () => {
  ({ server, other } = await startWithTwoHouseholds());
  otherData = await fillHousehold(server, other);
});
afterAll(() => server?.close());

/** A household of its own with fillHousehold's records. */

const transaction = async (household: TestHousehold, id: string) =>
  (await server.api.call('getTransaction', { key: household.readKey, params: { id } })).body.data;

const everything = () =>
  server.query(`select t.id, t.category_id, t.merchant_id, e.search_text, c.name, c.parent_id
                  from transactions t full join categories c on false left join entries e on e.entryable_id = t.id
                 order by t.id, c.id`);

describe('updateCategory', () => {
  it('changes name, colour, icon and parent; refuses a circle, a taken name and foreign records', async () => {
    const { household, data } = await filledHousehold(server);
    const update = (id: string, category: Record<string, unknown>, key = household.writeKey) =>
      server.api.call('updateCategory', { key, params: { id }, body: { category } });
    const changed = await update(data.subcategory, { name: 'Supermarket', color: '#112233', icon: 'cart' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      name: 'Supermarket',
      color: '#112233',
      icon: 'cart',
      parent: { id: data.category, name: 'Food' },
    });
    expect((await update(data.subcategory, { icon: null, parent_id: null })).body.data).toMatchObject({
      icon: null,
      parent: null,
    });
    expect((await update(data.category, { parent_id: data.subcategory })).body.data.parent.id).toBe(data.subcategory);

    const before = await everything();
    for (const [category, path, message] of [
      [
        { parent_id: data.subcategory },
        '/body/category/parent_id',
        'parent_id must not be the category itself or one nested under it',
      ],
      [
        { parent_id: data.category },
        '/body/category/parent_id',
        'parent_id must not be the category itself or one nested under it',
      ],
      [
        { parent_id: otherData.category },
        '/body/category/parent_id',
        'parent_id does not match a category of this family',
      ],
      [{ name: 'food' }, '/body/category/name', 'name has already been taken'],
    ] as const) {
      const refused = await update(data.subcategory, category);
      expect(refused.status, JSON.stringify(category)).toBe(422);
      expect(refused.body.errors).toEqual([{ path, message }]);
    }
    expect((await update(otherData.category, { name: 'Mine now' })).status).toBe(404);
    expect((await update(data.category, { name: 'Read only' }, household.readKey)).status).toBe(403);
    expect((await update(data.category, {})).status).toBe(422);
    expect(await everything()).toEqual(before);
  });
});

describe('deleteCategory', () => {
  it('leaves its transactions uncategorised and its subcategories top-level', async () => {
    const { household, data } = await filledHousehold(server);
    const deleted = await server.api.call('deleteCategory', { key: household.writeKey, params: { id: data.category } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id: data.category, deleted: true } });
    expect((await transaction(household, data.transactions[0]!)).category).toBeNull();
    expect((await transaction(household, data.transactions[1]!)).category.id).toBe(data.subcategory);
    const sub = await server.api.call('getCategory', { key: household.readKey, params: { id: data.subcategory } });
    expect(sub.body.data.parent).toBeNull();
    expect(
      (await server.api.call('deleteCategory', { key: household.writeKey, params: { id: data.category } })).status,
    ).toBe(404);
  });

  it('moves its transactions to replacement_id, and refuses a replacement that is not another of the family', async () => {
    const { household, data } = await filledHousehold(server);
    const remove = (query: Record<string, string>, id = data.subcategory, key = household.writeKey) =>
      server.api.call('deleteCategory', { key, params: { id }, query });
    const before = await everything();
    for (const [replacement, message] of [
      [data.subcategory, 'replacement_id must be another category than the one deleted'],
      [otherData.category, 'replacement_id does not match a category of this family'],
    ] as const) {
      const refused = await remove({ replacement_id: replacement });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([{ path: '/query/replacement_id', message }]);
    }
    expect((await remove({}, otherData.category)).status).toBe(404);
    expect((await remove({}, data.category, household.readKey)).status).toBe(403);
    expect(await everything()).toEqual(before);

    expect((await remove({ replacement_id: data.category })).status).toBe(200);
    expect((await transaction(household, data.transactions[1]!)).category.id).toBe(data.category);
    expect((await transaction(household, data.transactions[0]!)).category.id).toBe(data.category);
  });

  it('stays consistent while transactions are given the category it deletes', async () => {
    const { household, data } = await filledHousehold(server);
    const key = household.writeKey;
    const doomed = (await server.api.call('createCategory', { key, body: { category: { name: 'Doomed' } } })).body.data
      .id as string;
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i % 6 === 5)
        return server.api.call('deleteCategory', {
          key,
          params: { id: doomed },
          query: { replacement_id: data.category },
        });
      if (i % 2 === 0) {
        const transaction = {
          account_id: i % 4 ? data.checking : data.savings,
          date: '2024-03-15',
          amount: 4,
          name: `Doomed ${i}`,
          category_id: doomed,
        };
        return server.api.call('createTransaction', { key, body: { transaction } });
      }
      return server.api.call('updateTransaction', {
        key,
        params: { id: data.transactions[i % 3]! },
        body: { transaction: { category_id: doomed, amount: i } },
      });
    });
    const answers = await Promise.all(requests);
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(answers.filter((answer) => ![200, 201, 404, 422].includes(answer.status))).toEqual([]);
    const deletes = answers.filter((answer) => answer.operationId === 'deleteCategory');
    expect(deletes.filter((answer) => answer.status === 200)).toHaveLength(1);
    // Every transaction that was given the category committed before the delete and moved with it.
    const left = await server.query('select 1 from transactions where category_id = $1', [doomed]);
    expect(left).toEqual([]);
    const created = answers.filter((answer) => answer.operationId === 'createTransaction' && answer.status === 201);
    for (const answer of created)
      expect((await transaction(household, answer.body.data.id)).category.id).toBe(data.category);
    await expectBalancesFresh(server);
  });
});

describe('updateMerchant and deleteMerchant', () => {
  it('renames a merchant, which the search follows, and refuses a taken name', async () => {
    const { household, data } = await filledHousehold(server);
    const renamed = await server.api.call('updateMerchant', {
      key: household.writeKey,
      params: { id: data.merchant },
      body: { merchant: { name: ' Village Market ' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: data.merchant, name: 'Village Market' });
    const found = await server.api.call('listTransactions', { key: household.readKey, query: { search: 'village' } });
    expect(found.body.data).toHaveLength(3);
    await server.api.call('createMerchant', { key: household.writeKey, body: { merchant: { name: 'Kiosk' } } });
    const clash = await server.api.call('updateMerchant', {
      key: household.writeKey,
      params: { id: data.merchant },
      body: { merchant: { name: 'kiosk' } },
    });
    expect(clash.status).toBe(422);
    expect(clash.body.errors).toEqual([{ path: '/body/merchant/name', message: 'name has already been taken' }]);
    const foreign = await server.api.call('updateMerchant', {
      key: household.writeKey,
      params: { id: otherData.merchant },
      body: { merchant: { name: 'Mine' } },
    });
    expect(foreign.status).toBe(404);
  });

  it('deletes a merchant; its transactions stay without it', async () => {
    const { household, data } = await filledHousehold(server);
    expect(
      (await server.api.call('deleteMerchant', { key: household.readKey, params: { id: data.merchant } })).status,
    ).toBe(403);
    expect(
      (await server.api.call('deleteMerchant', { key: household.writeKey, params: { id: otherData.merchant } })).status,
    ).toBe(404);
    const deleted = await server.api.call('deleteMerchant', { key: household.writeKey, params: { id: data.merchant } });
    expect(deleted.body).toEqual({ data: { id: data.merchant, deleted: true } });
    for (const id of data.transactions) expect((await transaction(household, id)).merchant).toBeNull();
    const found = await server.api.call('listTransactions', { key: household.readKey, query: { search: 'corner' } });
    expect(found.body.data).toEqual([]);
    expect(
      (await server.api.call('getMerchant', { key: household.readKey, params: { id: data.merchant } })).status,
    ).toBe(404);
  });

  it('stays consistent while transactions are given the merchant it deletes or renames', async () => {
    const { household, data } = await filledHousehold(server);
    const key = household.writeKey;
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i === 17) return server.api.call('deleteMerchant', { key, params: { id: data.merchant } });
      if (i % 4 === 1) {
        return server.api.call('updateMerchant', {
          key,
          params: { id: data.merchant },
          body: { merchant: { name: `Shop ${i}` } },
        });
      }
      if (i % 2 === 0) {
        const transaction = {
          account_id: i % 4 ? data.checking : data.savings,
          date: '2024-03-15',
          amount: 4,
          name: `Bought ${i}`,
          merchant_id: data.merchant,
        };
        return server.api.call('createTransaction', { key, body: { transaction } });
      }
      return server.api.call('updateTransaction', {
        key,
        params: { id: data.transactions[i % 3]! },
        body: { transaction: { merchant_id: data.merchant, amount: i } },
      });
    });
    const answers = await Promise.all(requests);
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(await server.query('select 1 from transactions where merchant_id = $1', [data.merchant])).toEqual([]);
    // No entry's search text still holds a name of the merchant.
    expect(
      await server.query(`select search_text from entries where family_id = $1 and search_text like '%shop %'`, [
        household.familyId,
      ]),
    ).toEqual([]);
    await expectBalancesFresh(server);
  });
});
