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

const count = async () => (await server.query<{ n: number }>('select count(*)::int as n from merchants'))[0]!.n;

describe('merchants', () => {
  it('creates, lists by name and shows merchants', async () => {
    for (const name of ['Shell', 'amazon', 'Blue Bottle']) {
      expect(
        (await server.api.call('createMerchant', { key: household.writeKey, body: { merchant: { name } } })).status,
      ).toBe(201);
    }
    const list = await server.api.call('listMerchants', { key: household.readKey });
    expect(list.body.data.map((m: { name: string }) => m.name)).toEqual(['amazon', 'Blue Bottle', 'Shell']);
    const shown = await server.api.call('getMerchant', {
      key: household.readKey,
      params: { id: list.body.data[0].id },
    });
    expect(shown.body.data).toEqual(list.body.data[0]);
  });

  it('trims names and refuses duplicates ignoring case', async () => {
    const before = await count();
    const response = await server.api.call('createMerchant', {
      key: household.writeKey,
      body: { merchant: { name: '  SHELL ' } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ path: '/body/merchant/name', message: 'name has already been taken' }]);
    expect(await count()).toBe(before);
  });

  it.each([
    ['a missing name', { merchant: {} }],
    ['a blank name', { merchant: { name: '' } }],
    ['a name that is not a string', { merchant: { name: ['Shell'] } }],
  ])('refuses %s with 422 and writes nothing', async (_, body) => {
    const before = await count();
    const response = await server.api.call('createMerchant', { key: household.writeKey, body });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].path).toBe('/body/merchant/name');
    expect(await count()).toBe(before);
  });

  it('keeps families apart', async () => {
    const list = await server.api.call('listMerchants', { key: other.readKey });
    expect(list.body.data).toEqual([]);
    const [mine] = (await server.api.call('listMerchants', { key: household.readKey })).body.data;
    expect((await server.api.call('getMerchant', { key: other.readKey, params: { id: mine.id } })).status).toBe(404);
  });
});
