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

const openAccount = async (key: string, balance = 0, account_type: 'depository' | 'credit_card' = 'depository') => {
  const response = await server.api.call('createAccount', {
    key,
    body: { account: { name: `Account ${Math.random()}`, account_type, balance } },
  });
  return response.body.data.id as string;
};
const balanceOf = async (key: string, id: string) =>
  (await server.api.call('getAccount', { key, params: { id } })).body.data.balance_cents as number;
const valuate = (key: string, valuation: Record<string, unknown>) =>
  server.api.call('createValuation', { key, body: { valuation } });
const spend = (key: string, account_id: string, amount: number, date: string, nature = 'expense') =>
  server.api.call('createTransaction', {
    key,
    body: { transaction: { account_id, amount, date, name: 'Flow', nature } },
  });

describe('createValuation', () => {
  it('creates a valuation (201) and answers 200 when it updates the same account and date', async () => {
    const account = await openAccount(household.writeKey);
    const created = await valuate(household.writeKey, { account_id: account, amount: 1500.25, date: '2024-03-31', notes: 'Statement' }); // prettier-ignore
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      date: '2024-03-31',
      amount: '$1,500.25',
      amount_cents: 150025,
      currency: 'USD',
      notes: 'Statement',
      kind: 'reconciliation',
      account: { id: account, account_type: 'depository' },
    });
    const again = await valuate(household.writeKey, { account_id: account, amount: 1600, date: '2024-03-31' });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: created.body.data.id, amount_cents: 160000, notes: 'Statement' });
    const rows = await server.query<{ count: string }>(
      "select count(*) from entries where account_id = $1 and entryable_type = 'Valuation'",
      [account],
    );
    expect(Number(rows[0]!.count)).toBe(1);
  });

  it('answers 404 for an unknown or foreign account, 422 for each missing field', async () => {
    const foreign = await openAccount(other.writeKey);
    expect((await valuate(household.writeKey, { account_id: foreign, amount: 1, date: '2024-01-01' })).status).toBe(
      404,
    );
    for (const missing of ['account_id', 'amount', 'date']) {
      const valuation: Record<string, unknown> = { account_id: foreign, amount: 1, date: '2024-01-01' };
      delete valuation[missing];
      const response = await valuate(household.writeKey, valuation);
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body.errors)).toContain(missing);
    }
  });
});

describe('updateValuation and getValuation', () => {
  it('takes amount and date only together, notes alone; shows the result', async () => {
    const account = await openAccount(household.writeKey);
    const { body } = await valuate(household.writeKey, { account_id: account, amount: 10, date: '2024-05-01' });
    const id = body.data.id as string;
    const update = (valuation: Record<string, unknown>) =>
      server.api.call('updateValuation', { key: household.writeKey, params: { id }, body: { valuation } });
    for (const half of [{ amount: 20 }, { date: '2024-05-02' }]) {
      const refused = await update(half);
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].message).toBe('Both amount and date are required when updating reconciliation');
    }
    expect((await update({ notes: 'checked' })).body.data).toMatchObject({ notes: 'checked', amount_cents: 1000 });
    const moved = await update({ amount: 30, date: '2024-05-02' });
    expect(moved.body.data).toMatchObject({ date: '2024-05-02', amount_cents: 3000, notes: 'checked' });
    const shown = await server.api.call('getValuation', { key: household.readKey, params: { id } });
    expect(shown.body.data).toEqual(moved.body.data);
    expect((await server.api.call('getValuation', { key: other.readKey, params: { id } })).status).toBe(404);
  });
});

describe('account balance, kept by the account_sync job', () => {
  it('is the latest valuation plus the flows after it, once the queue has drained', async () => {
    const account = await openAccount(household.writeKey, 100);
    await spend(household.writeKey, account, 30, '2024-01-10');
    await server.drainJobs();
    expect(await balanceOf(household.readKey, account)).toBe(7000); // opening 100 - 30
    await valuate(household.writeKey, { account_id: account, amount: 1000, date: '2024-02-01' });
    await spend(household.writeKey, account, 50, '2024-01-20'); // before the valuation: absorbed by it
    await spend(household.writeKey, account, 200, '2024-02-15');
    await spend(household.writeKey, account, 25, '2024-02-20', 'income');
    expect(await balanceOf(household.readKey, account)).toBe(7000); // not synced yet
    await server.drainJobs();
    expect(await balanceOf(household.readKey, account)).toBe(82500); // 1000 - 200 + 25
  });

  it('grows a liability with its charges', async () => {
    const card = await openAccount(household.writeKey, 0, 'credit_card');
    await spend(household.writeKey, card, 40, '2024-03-01');
    await spend(household.writeKey, card, 15, '2024-03-02', 'income');
    await server.drainJobs();
    expect(await balanceOf(household.readKey, card)).toBe(2500);
  });

  it('queues one pending sync per account for a burst of writes, and many concurrent writes end consistent', async () => {
    const account = await openAccount(household.writeKey, 0);
    await Promise.all(Array.from({ length: 20 }, (_, i) => spend(household.writeKey, account, i + 1, '2024-04-01')));
    const jobs = await server.query<{ count: string }>('select count(*) from graphile_worker.jobs where key = $1', [
      `account_sync:${account}`,
    ]);
    expect(Number(jobs[0]!.count)).toBe(1);
    await server.drainJobs();
    expect(await balanceOf(household.readKey, account)).toBe(-21000); // -(1 + ... + 20) * 100
  });

  it('retries a sync that failed, ending as one clean run would', async () => {
    const account = await openAccount(household.writeKey, 500);
    await spend(household.writeKey, account, 120, '2024-06-01');
    // A real failure inside the sync's transaction: the database refuses the balance update once.
    await server.query(`
      create function refuse_balance_once() returns trigger language plpgsql as $$
      begin raise exception 'balance update refused (test)'; end $$`);
    await server.query(
      'create trigger refuse_balance before update of balance on accounts for each row execute function refuse_balance_once()',
    );
    await server.drainJobs();
    const [failed] = await server.query<{ attempts: number; last_error: string }>(
      'select attempts, last_error from graphile_worker.jobs where key = $1',
      [`account_sync:${account}`],
    );
    expect(failed).toMatchObject({ attempts: 1 });
    expect(failed!.last_error).toContain('balance update refused');
    expect(await balanceOf(household.readKey, account)).toBe(50000);
    // The stale balance is not silent: the account says why it is stale.
    const stale = await server.api.call('getAccount', { key: household.readKey, params: { id: account } });
    expect(stale.body.data.sync_error).toBe(
      'The balance and holdings could not be updated: balance update refused (test) (SQLSTATE P0001). The update is retried automatically.',
    );
    await server.query('drop trigger refuse_balance on accounts');
    await server.query('drop function refuse_balance_once()');
    // The retry is scheduled with a backoff; bring it forward instead of waiting.
    await server.query('update graphile_worker._private_jobs set run_at = now() where key = $1', [
      `account_sync:${account}`,
    ]);
    await server.drainJobs();
    expect(await balanceOf(household.readKey, account)).toBe(38000);
    const synced = await server.api.call('getAccount', { key: household.readKey, params: { id: account } });
    expect(synced.body.data.sync_error).toBeNull();
    const left = await server.query('select 1 from graphile_worker.jobs where key = $1', [`account_sync:${account}`]);
    expect(left).toEqual([]);
  });
});
