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

const count = async () => (await server.query<{ n: number }>('select count(*)::int as n from categories'))[0]!.n;

describe('createCategory', () => {
  it('creates a category with a parent and shows the parent by id and name', async () => {
    const parent = await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'Food', color: '#EB5429', icon: 'utensils' } },
    });
    expect(parent.status).toBe(201);
    expect(parent.body.data).toMatchObject({ name: 'Food', color: '#EB5429', icon: 'utensils', parent: null });
    const child = await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'Groceries', parent_id: parent.body.data.id } },
    });
    expect(child.status).toBe(201);
    expect(child.body.data.parent).toEqual({ id: parent.body.data.id, name: 'Food' });
    expect(child.body.data.color).toMatch(/^#[0-9A-Fa-f]{6}$/);
  });

  it('refuses a duplicate name whatever its case, and keeps the table unchanged', async () => {
    const before = await count();
    const response = await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'fOOD' } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ path: '/body/category/name', message: 'name has already been taken' }]);
    expect(await count()).toBe(before);
  });

  it('lets another family use the same name', async () => {
    const response = await server.api.call('createCategory', {
      key: other.writeKey,
      body: { category: { name: 'Food' } },
    });
    expect(response.status).toBe(201);
  });

  it.each([
    ['a missing name', { category: {} }, '/body/category/name'],
    ['a blank name', { category: { name: '   ' } }, '/body/category/name'],
    ['a name of the wrong type', { category: { name: 42 } }, '/body/category/name'],
    ['a colour that is not #RRGGBB', { category: { name: 'Pets', color: 'blue' } }, '/body/category/color'],
    ['a malformed parent id', { category: { name: 'Pets', parent_id: 'nope' } }, '/body/category/parent_id'],
    ['no category object', {}, '/body/category'],
  ])('refuses %s with 422 at the right path and writes nothing', async (_, body, path) => {
    const before = await count();
    const response = await server.api.call('createCategory', { key: household.writeKey, body });
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('validation_failed');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect(await count()).toBe(before);
  });

  it("refuses another family's category as parent", async () => {
    const foreign = await server.api.call('listCategories', { key: other.readKey });
    const before = await count();
    const response = await server.api.call('createCategory', {
      key: household.writeKey,
      body: { category: { name: 'Sneaky', parent_id: foreign.body.data[0].id } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toEqual({
      path: '/body/category/parent_id',
      message: 'parent_id does not match a category of this family',
    });
    expect(await count()).toBe(before);
  });

  it('answers malformed JSON with 400 bad_request', async () => {
    const response = await server.api.request('POST', '/api/v1/categories', {
      key: household.writeKey,
      body: '{"category": {',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('bad_request');
  });
});

describe('listCategories and getCategory', () => {
  it('lists the family categories by name with pagination', async () => {
    const first = await server.api.call('listCategories', { key: household.readKey, query: { per_page: 1 } });
    expect(first.body.data.map((c: { name: string }) => c.name)).toEqual(['Food']);
    expect(first.body.meta).toMatchObject({ total_count: 2, total_pages: 2, next_page: 2, prev_page: null });
    const second = await server.api.call('listCategories', { key: household.readKey, query: { per_page: 1, page: 2 } });
    expect(second.body.data.map((c: { name: string }) => c.name)).toEqual(['Groceries']);
  });

  it("shows a category, and another family's is 404", async () => {
    const [food] = (await server.api.call('listCategories', { key: household.readKey })).body.data;
    expect(
      (await server.api.call('getCategory', { key: household.readKey, params: { id: food.id } })).body.data,
    ).toEqual(food);
    const foreign = await server.api.call('getCategory', { key: other.readKey, params: { id: food.id } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Category not found');
  });
});
