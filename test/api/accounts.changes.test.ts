import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueAccountSync } from '../../server/accounts/account-sync.ts';
import { ENTRIES_DELETED_AT_ONCE } from '../../server/accounts/account-deletion.ts';
import { insertTransactions } from '../../server/transactions/transaction.bulk-insert.ts';
import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { familyRowCounts, filledHousehold, fillHousehold, type HouseholdData } from '../support/household-data.ts';
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

const csv = (rows: number) =>
  ['date,amount,name', ...Array.from({ length: rows }, (_, i) => `2024-03-0${(i % 9) + 1},-1.50,Row ${i}`)].join('\n');

/** What is left of an account anywhere: its row, its entries and what hangs off it. */
async function remains(accountId: string) {
  const [row] = await server.query<Record<string, number>>(
    `select (select count(*) from accounts where id = $1)::int as accounts,
            (select count(*) from entries where account_id = $1)::int as entries,
            (select count(*) from balances where account_id = $1)::int as balances,
            (select count(*) from holdings where account_id = $1)::int as holdings,
            (select count(*) from imports where account_id = $1)::int as imports,
            (select count(*) from account_entry_counts where account_id = $1)::int as counts`,
    [accountId],
  );
  return row;
}

const nothingLeft = { accounts: 0, entries: 0, balances: 0, holdings: 0, imports: 0, counts: 0 };

/** No detail of an entry without its entry, anywhere. */
async function expectNoOrphans(familyId: string) {
  const counts = await familyRowCounts(server, familyId);
  expect(counts).toMatchObject({ 'orphan transactions': 0, 'orphan valuations': 0, 'orphan trades': 0 });
}

describe('updateAccount', () => {
  it('changes name, subtype and status; refuses a taken name and foreign accounts', async () => {
    const { household, data } = await filledHousehold(server);
    const update = (id: string, account: Record<string, unknown>, key = household.writeKey) =>
      server.api.call('updateAccount', { key, params: { id }, body: { account } });
    const changed = await update(data.checking, { name: ' Joint ', subtype: 'checking', status: 'draft' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ name: 'Joint', subtype: 'checking', status: 'draft' });
    expect((await update(data.checking, { subtype: null })).body.data.subtype).toBeNull();

    const before = await server.query('select * from accounts order by id');
    const clash = await update(data.checking, { name: 'savings' });
    expect(clash.status).toBe(422);
    expect(clash.body.errors).toEqual([{ path: '/body/account/name', message: 'name has already been taken' }]);
    expect((await update(data.checking, { status: 'pending_deletion' })).status).toBe(422);
    expect((await update(data.checking, { currency: 'EUR' })).status).toBe(422);
    expect((await update(data.checking, {})).status).toBe(422);
    expect((await update(otherData.checking, { name: 'Mine' })).status).toBe(404);
    expect((await update(data.checking, { name: 'Read' }, household.readKey)).status).toBe(403);
    expect(await server.query('select * from accounts order by id')).toEqual(before);
  });
});

describe('deleteAccount', () => {
  it('deletes an account with all it holds; the other side of its transfer stays and is synced', async () => {
    const { household, data } = await filledHousehold(server);
    const key = household.writeKey;
    const staged = await server.api.call('createImport', {
      key,
      body: { account_id: data.checking, raw_file_content: csv(3) },
    });
    expect(staged.status).toBe(201);
    await server.drainJobs();
    const inflow = (
      await server.api.call('listTransactions', { key: household.readKey, query: { account_id: data.savings } })
    ).body.data.find((t: { transfer: unknown }) => t.transfer);

    expect(
      (await server.api.call('deleteAccount', { key: household.readKey, params: { id: data.checking } })).status,
    ).toBe(403);
    expect((await server.api.call('deleteAccount', { key, params: { id: otherData.checking } })).status).toBe(404);
    const deleted = await server.api.call('deleteAccount', { key, params: { id: data.checking } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id: data.checking, deleted: true } });
    expect(await remains(data.checking)).toEqual(nothingLeft);
    expect(
      (await server.api.call('getAccount', { key: household.readKey, params: { id: data.checking } })).status,
    ).toBe(404);
    expect(
      (await server.api.call('getImport', { key: household.readKey, params: { id: staged.body.data.id } })).status,
    ).toBe(404);
    expect((await server.api.call('deleteAccount', { key, params: { id: data.checking } })).status).toBe(404);
    // The savings side of the transfer is an ordinary transaction now.
    const kept = await server.api.call('getTransaction', { key: household.readKey, params: { id: inflow.id } });
    expect(kept.body.data).toMatchObject({ transfer: null, classification: 'income' });
    await expectNoOrphans(household.familyId);
    await expectBalancesFresh(server);
  });

  it('refuses while an import of the account is being written, and deletes nothing', async () => {
    const { household, data } = await filledHousehold(server);
    const staged = await server.api.call('createImport', {
      key: household.writeKey,
      body: { account_id: data.checking, raw_file_content: csv(2) },
    });
    await server.drainJobs();
    // An import whose job is writing it: the state a publish leaves until the worker is done.
    await server.query(`update imports set status = 'importing', holds_turn = true where id = $1`, [
      staged.body.data.id,
    ]);
    const before = await remains(data.checking);
    const refused = await server.api.call('deleteAccount', { key: household.writeKey, params: { id: data.checking } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(
      'The account has an import in progress (importing); delete the account once it has ended',
    );
    expect(await remains(data.checking)).toEqual(before);
  });

  it(`marks an account of more than ${ENTRIES_DELETED_AT_ONCE} entries pending_deletion and deletes it in a job`, async () => {
    const { household, data } = await filledHousehold(server);
    const key = household.writeKey;
    await insertTransactions(
      server.em(),
      Array.from({ length: ENTRIES_DELETED_AT_ONCE * 2 + 10 }, (_, i) => ({
        familyId: household.familyId,
        accountId: data.checking,
        date: `2024-0${(i % 9) + 1}-15`,
        amount: '1.25',
        currency: 'USD',
        name: `Bulk ${i}`,
        categoryId: data.category,
        tagIds: [data.tag],
      })),
    );
    await queueAccountSync(server.em(), data.checking);
    await server.drainJobs();

    const pending = await server.api.call('deleteAccount', { key, params: { id: data.checking } });
    expect(pending.status).toBe(202);
    expect(pending.body.data).toMatchObject({ id: data.checking, status: 'pending_deletion' });
    expect((await server.api.call('deleteAccount', { key, params: { id: data.checking } })).status).toBe(202);
    const shown = await server.api.call('getAccount', { key: household.readKey, params: { id: data.checking } });
    expect(shown.body.data.status).toBe('pending_deletion');
    // It takes no more entries, nor changes.
    const transaction = { account_id: data.checking, date: '2024-05-01', amount: 2, name: 'Too late' };
    expect((await server.api.call('createTransaction', { key, body: { transaction } })).status).toBe(404);
    const valuation = { account_id: data.checking, date: '2024-05-01', amount: 2 };
    expect((await server.api.call('createValuation', { key, body: { valuation } })).status).toBe(404);
    expect(
      (await server.api.call('updateAccount', { key, params: { id: data.checking }, body: { account: { name: 'x' } } }))
        .status,
    ).toBe(404);

    await server.drainJobs();
    expect(await remains(data.checking)).toEqual(nothingLeft);
    expect(
      (await server.api.call('getAccount', { key: household.readKey, params: { id: data.checking } })).status,
    ).toBe(404);
    await expectNoOrphans(household.familyId);
    await expectBalancesFresh(server);
  });

  it('stays whole under concurrent writes to the account, transfers into it and deletes of it', async () => {
    const { household, data } = await filledHousehold(server);
    const key = household.writeKey;
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i % 8 === 7) return server.api.call('deleteAccount', { key, params: { id: data.checking } });
      if (i % 4 === 0) {
        const transaction = {
          account_id: data.checking,
          date: '2024-03-21',
          amount: 5,
          name: `Race ${i}`,
          nature: 'expense',
        };
        return server.api.call('createTransaction', { key, body: { transaction } });
      }
      if (i % 4 === 1) {
        const transfer = { from_account_id: data.savings, to_account_id: data.checking, amount: 7, date: '2024-03-22' };
        return server.api.call('createTransfer', { key, body: { transfer } });
      }
      if (i % 4 === 2) {
        const valuation = { account_id: data.checking, date: `2024-04-${String(i).padStart(2, '0')}`, amount: 900 + i };
        return server.api.call('createValuation', { key, body: { valuation } });
      }
      return server.api.call('updateTransaction', {
        key,
        params: { id: data.transactions[i % 3]! },
        body: { transaction: { amount: i } },
      });
    });
    const answers = await Promise.all(requests);
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    const deletes = answers.filter((answer) => answer.operationId === 'deleteAccount');
    expect(deletes.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(await remains(data.checking)).toEqual(nothingLeft);
    await expectNoOrphans(household.familyId);
    await expectBalancesFresh(server);
  });

  it('keeps balances right while the job deletes an account that transfers and writes still reach', async () => {
    const { household, data } = await filledHousehold(server);
    const key = household.writeKey;
    await insertTransactions(
      server.em(),
      Array.from({ length: ENTRIES_DELETED_AT_ONCE * 2 + 500 }, (_, i) => ({
        familyId: household.familyId,
        accountId: data.checking,
        date: `2024-0${(i % 9) + 1}-10`,
        amount: '-2.00',
        currency: 'USD',
        name: `Salary ${i}`,
      })),
    );
    await queueAccountSync(server.em(), data.checking);
    await server.drainJobs();
    expect((await server.api.call('deleteAccount', { key, params: { id: data.checking } })).status).toBe(202);
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i % 3 === 0) {
        const transfer = { from_account_id: data.savings, to_account_id: data.checking, amount: 3, date: '2024-03-23' };
        return server.api.call('createTransfer', { key, body: { transfer } });
      }
      if (i % 3 === 1) {
        const transaction = { account_id: data.savings, date: '2024-03-24', amount: 6, name: `Meanwhile ${i}` };
        return server.api.call('createTransaction', { key, body: { transaction } });
      }
      return server.api.call('deleteAccount', { key, params: { id: data.checking } });
    });
    const [answers] = await Promise.all([Promise.all(requests), server.drainJobs()]);
    await server.drainJobs();
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(await remains(data.checking)).toEqual(nothingLeft);
    // Every transfer made into the account went with it; its savings side stays as a transaction.
    expect(await server.query('select 1 from transfers where family_id = $1', [household.familyId])).toEqual([]);
    await expectNoOrphans(household.familyId);
    await expectBalancesFresh(server);
  });
});
