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

const rows = () => server.query<{ name: string; color: string }>('select name, color from tags order by name');

async function createTag(name: string, color?: string) {
  const response = await server.api.call('createTag', {
    key: household.writeKey,
    body: { tag: { name, ...(color ? { color } : {}) } },
  });
  expect(response.status).toBe(201);
  return response.body.data as { id: string; name: string; color: string };
}

describe('tags', () => {
  it('creates a tag with a default colour and lists it', async () => {
    const tag = await createTag('Vacation');
    expect(tag.color).toMatch(/^#[0-9a-fA-F]{6}$/);
    const list = await server.api.call('listTags', { key: household.readKey });
    expect(list.body.data).toEqual([tag]);
  });

  it('updates name and colour, and refuses a name taken by another tag', async () => {
    const tag = await createTag('Work', '#112233');
    const renamed = await server.api.call('updateTag', {
      key: household.writeKey,
      params: { id: tag.id },
      body: { tag: { name: 'Business' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: tag.id, name: 'Business', color: '#112233' });
    const before = await rows();
    const clash = await server.api.call('updateTag', {
      key: household.writeKey,
      params: { id: tag.id },
      body: { tag: { name: 'vacation' } },
    });
    expect(clash.status).toBe(422);
    expect(clash.body.errors).toEqual([{ path: '/body/tag/name', message: 'name has already been taken' }]);
    expect(await rows()).toEqual(before);
  });

  it('refuses a bad colour on update and changes nothing', async () => {
    const [tag] = (await server.api.call('listTags', { key: household.readKey })).body.data;
    const before = await rows();
    const response = await server.api.call('updateTag', {
      key: household.writeKey,
      params: { id: tag.id },
      body: { tag: { color: 'red' } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].path).toBe('/body/tag/color');
    expect(await rows()).toEqual(before);
  });

  it("deletes a tag; deleting it again, or another family's, is 404", async () => {
    const tag = await createTag('Temporary');
    const foreign = await server.api.call('deleteTag', { key: other.writeKey, params: { id: tag.id } });
    expect(foreign.status).toBe(404);
    const deleted = await server.api.call('deleteTag', { key: household.writeKey, params: { id: tag.id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id: tag.id, deleted: true } });
    expect((await server.api.call('deleteTag', { key: household.writeKey, params: { id: tag.id } })).status).toBe(404);
    expect((await server.api.call('getTag', { key: household.readKey, params: { id: tag.id } })).status).toBe(404);
  });

  it('refuses changes with a read key', async () => {
    const [tag] = (await server.api.call('listTags', { key: household.readKey })).body.data;
    expect(
      (
        await server.api.call('updateTag', {
          key: household.readKey,
          params: { id: tag.id },
          body: { tag: { name: 'x' } },
        })
      ).status,
    ).toBe(403);
    expect((await server.api.call('deleteTag', { key: household.readKey, params: { id: tag.id } })).status).toBe(403);
  });
});
