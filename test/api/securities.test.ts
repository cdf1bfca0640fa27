import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Family } from '../../server/families/family.entity.ts';
import { Security } from '../../server/securities/security.entity.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  const em = server.em();
  em.create(Security, { ticker: 'VTI', name: 'Vanguard Total Stock Market ETF', exchangeOperatingMic: 'ARCX' });
  em.create(Security, { ticker: 'BTC', name: 'Bitcoin', kind: 'standard' });
  em.create(Security, {
    ticker: 'MYCO',
    name: 'Family private holding',
    family: em.getReference(Family, household.familyId),
  });
  em.create(Security, {
    ticker: 'THEIRS',
    name: 'Other family holding',
    family: em.getReference(Family, other.familyId),
  });
  await em.flush();
});
afterAll(() => server?.close());

describe('securities', () => {
  it("lists shared securities and the family's own, never another family's", async () => {
    const response = await server.api.call('listSecurities', { key: household.readKey });
    expect(response.body.data.map((s: { ticker: string }) => s.ticker)).toEqual(['BTC', 'MYCO', 'VTI']);
    const theirs = await server.api.call('listSecurities', { key: other.readKey });
    expect(theirs.body.data.map((s: { ticker: string }) => s.ticker)).toEqual(['BTC', 'THEIRS', 'VTI']);
  });

  it('searches ticker and name case-insensitively', async () => {
    const byName = await server.api.call('listSecurities', { key: household.readKey, query: { search: 'vanguard' } });
    expect(byName.body.data.map((s: { ticker: string }) => s.ticker)).toEqual(['VTI']);
    const byTicker = await server.api.call('listSecurities', { key: household.readKey, query: { search: 'btc' } });
    expect(byTicker.body.data).toEqual([
      { id: expect.any(String), ticker: 'BTC', name: 'Bitcoin', exchange_operating_mic: null, kind: 'standard' },
    ]);
  });

  it("shows a visible security; another family's own is 404", async () => {
    const list = (await server.api.call('listSecurities', { key: other.readKey })).body.data as {
      id: string;
      ticker: string;
    }[];
    const theirs = list.find((s) => s.ticker === 'THEIRS')!;
    expect((await server.api.call('getSecurity', { key: other.readKey, params: { id: theirs.id } })).status).toBe(200);
    expect((await server.api.call('getSecurity', { key: household.readKey, params: { id: theirs.id } })).status).toBe(
      404,
    );
  });
});
