import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * A write that needs an account another transaction holds (an import writes into its account in one
 * transaction, for as long as the file takes) waits at most DB_LOCK_TIMEOUT_MS, then is answered 503
 * having written nothing; its connection is free again for everyone else.
 */
const LOCK_TIMEOUT_MS = 300;
const BUSY_MESSAGE =
  'Another change to the same records (such as an import into the account) is still running; nothing was written. Try again in 5 seconds.';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let accountId: string;
let transactionId: string;

beforeAll(async () => {
  server = await startTestServer({}, { pool: { size: 3, lockTimeoutMs: LOCK_TIMEOUT_MS } });
  household = await createHousehold(server);
  other = await createHousehold(server);
  const account = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name: 'Checking', account_type: 'depository', balance: 100 } },
  });
  accountId = account.body.data.id;
  const created = await createTransaction('Before');
  transactionId = created.body.data.id;
  await server.drainJobs();
});
afterAll(() => server?.close());

function createTransaction(name: string, headers: Record<string, string> = {}) {
  return server.api.call('createTransaction', {
    key: household.writeKey,
    headers,
    body: { transaction: { account_id: accountId, date: '2026-11-20', amount: 12.5, name } },
  });
}

/** Runs `work` while another transaction holds the account the way an import writing into it does. */
async function whileAccountHeld<T>(work: () => Promise<T>): Promise<T> {
  const holder = new pg.Client({ connectionString: server.databaseUrl });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('select id from accounts where id = $1 for no key update', [accountId]);
    return await work();
  } finally {
    await holder.query('rollback');
    await holder.end();
  }
}

const snapshot = () =>
  server.query(
    `select e.name, e.amount::text, a.balance::text
     from accounts a left join entries e on e.account_id = a.id where a.id = $1 order by e.name`,
    [accountId],
  );

function expectRecordsBusy(answer: { status: number; headers: Headers; body: unknown }): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('5');
  expect(answer.body).toEqual({ error: 'server_busy', message: BUSY_MESSAGE, errors: [{ message: BUSY_MESSAGE }] });
}

it('answers 20 concurrent writes to a held account 503 with Retry-After, writing nothing, and serves others meanwhile', async () => {
  const before = await snapshot();
  await whileAccountHeld(async () => {
    const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => createTransaction(`Held ${i}`)));
    for (const answer of writes) expectRecordsBusy(answer);
    // A unit of work (the ORM's pool) waits the same bounded time.
    expectRecordsBusy(
      await server.api.call('updateTransaction', {
        key: household.writeKey,
        params: { id: transactionId },
        body: { transaction: { amount: 99 } },
      }),
    );
    // The writes gave their connections back: another family is served while the account is held.
    expect((await server.api.call('listAccounts', { key: other.readKey })).status).toBe(200);
  });
  expect(await snapshot()).toEqual(before);
  expect((await createTransaction('After')).status).toBe(201);
});

it('keeps no answer for an Idempotency-Key refused this way: the same request runs once the account is free', async () => {
  const headers = { 'idempotency-key': crypto.randomUUID() };
  expectRecordsBusy(await whileAccountHeld(() => createTransaction('Keyed', headers)));
  const retried = await createTransaction('Keyed', headers);
  expect(retried.status).toBe(201);
  expect(retried.headers.get('idempotency-replayed')).toBeNull();
  expect(await server.query(`select 1 from entries where name = 'Keyed'`)).toHaveLength(1);
});
