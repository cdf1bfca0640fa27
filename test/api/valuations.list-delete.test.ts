import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { fillHousehold, type HouseholdData } from '../support/household-data.ts';
import { createHousehold, startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let data: HouseholdData;
let other: TestHousehold;
let otherData: HouseholdData;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  data = await fillHousehold(server, household);
  otherData = await fillHousehold(server, other);
});
afterAll(() => server?.close());

async function value(account_id: string, date: string, amount: number, key = household.writeKey) {
  const response = await server.api.call('createValuation', { key, body: { valuation: { account_id, date, amount } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data.id as string;
}

const list = (query: Record<string, string | number>, key = household.readKey) =>
  server.api.call('listValuations', { key, query });

describe('listValuations', () => {
  it('lists the family valuations newest first, filtered by account and dates, a page at a time', async () => {
    const march = await value(data.checking, '2024-03-31', 2000);
    const april = await value(data.checking, '2024-04-30', 2100);
    const all = await list({});
    expect(all.status).toBe(200);
    expect(all.body.data.map((v: { id: string }) => v.id)).toEqual([april, march, data.valuation]);
    expect(all.body.data[0]).toMatchObject({ date: '2024-04-30', amount: '$2,100.00', amount_cents: 210000 });
    expect(all.body.meta).toMatchObject({ total_count: 3, current_page: 1, per_page: 25 });

    const checking = await list({ account_id: data.checking });
    expect(checking.body.data.map((v: { id: string }) => v.id)).toEqual([april, march]);
    const dated = await list({ start_date: '2024-03-10', end_date: '2024-03-31' });
    expect(dated.body.data.map((v: { id: string }) => v.id)).toEqual([march, data.valuation]);
    const second = await list({ per_page: 2, page: 2 });
    expect(second.body.data.map((v: { id: string }) => v.id)).toEqual([data.valuation]);
    expect(second.body.meta).toMatchObject({ total_pages: 2, prev_page: 1, next_page: null });

    expect((await list({ account_id: otherData.savings })).body.data).toEqual([]);
    expect((await list({}, other.readKey)).body.data.map((v: { id: string }) => v.id)).toEqual([otherData.valuation]);
    const bad = await list({ start_date: '2024-02-30' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe('/query/start_date');
  });
});

describe('deleteValuation', () => {
  it('deletes a valuation, and the balance goes back to what the entries make', async () => {
    const fresh = await createHousehold(server);
    const account = (
      await server.api.call('createAccount', {
        key: fresh.writeKey,
        body: { account: { name: 'Wallet', account_type: 'depository', balance: 100 } },
      })
    ).body.data.id as string;
    const id = await value(account, '2024-01-15', 750, fresh.writeKey);
    await server.drainJobs();
    const balance = async () =>
      (await server.api.call('getAccount', { key: fresh.readKey, params: { id: account } })).body.data.balance;
    expect(await balance()).toBe('$750.00');

    expect((await server.api.call('deleteValuation', { key: fresh.readKey, params: { id } })).status).toBe(403);
    expect((await server.api.call('deleteValuation', { key: other.writeKey, params: { id } })).status).toBe(404);
    // A transaction's id names no valuation.
    const notValuation = { key: household.writeKey, params: { id: data.transactions[0]! } };
    expect((await server.api.call('deleteValuation', notValuation)).status).toBe(404);
    const deleted = await server.api.call('deleteValuation', { key: fresh.writeKey, params: { id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id, deleted: true } });
    expect((await server.api.call('getValuation', { key: fresh.readKey, params: { id } })).status).toBe(404);
    expect((await server.api.call('deleteValuation', { key: fresh.writeKey, params: { id } })).status).toBe(404);
    expect(
      await server.query(
        'select 1 from valuations v where not exists (select 1 from entries e where e.entryable_id = v.id)',
      ),
    ).toEqual([]);
    await server.drainJobs();
    expect(await balance()).toBe('$100.00');
  });

  it('keeps balances right under concurrent creates, changes and deletes of valuations', async () => {
    const ids: string[] = [];
    for (let day = 1; day <= 6; day++) ids.push(await value(data.savings, `2024-05-0${day}`, 1000 + day));
    const key = household.writeKey;
    const requests = Array.from({ length: 24 }, (_, i) => {
      const id = ids[i % 6]!;
      if (i % 4 === 0) return server.api.call('deleteValuation', { key, params: { id } });
      if (i % 4 === 1) {
        return server.api.call('updateValuation', {
          key,
          params: { id },
          body: { valuation: { amount: 1500 + i, date: `2024-06-${String(i + 1).padStart(2, '0')}` } },
        });
      }
      if (i % 4 === 2) {
        const valuation = { account_id: data.savings, date: `2024-05-0${(i % 6) + 1}`, amount: 3000 + i };
        return server.api.call('createValuation', { key, body: { valuation } });
      }
      const transaction = { account_id: data.savings, date: '2024-05-03', amount: 9, name: `Between ${i}` };
      return server.api.call('createTransaction', { key, body: { transaction } });
    });
    const answers = await Promise.all(requests);
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(answers.filter((answer) => ![200, 201, 404, 422].includes(answer.status))).toEqual([]);
    expect(
      await server.query(
        'select 1 from valuations v where not exists (select 1 from entries e where e.entryable_id = v.id)',
      ),
    ).toEqual([]);
    await expectBalancesFresh(server);
  });
});
