import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { until } from '../support/worker-process.ts';

/**
 * The app with a pool of two connections, and a request waiting at most 1 s for one; a statement
 * waits for a lock as long as it takes (the imports below wait for one the test holds).
 */
let server: TestServer;
let importer: TestHousehold;
let reader: TestHousehold;

beforeAll(async () => {
  server = await startTestServer({}, { pool: { size: 2, acquireTimeoutMs: 1000, lockTimeoutMs: 0 } });
  importer = await createHousehold(server);
  reader = await createHousehold(server);
});
afterAll(() => server?.close());

const listAccounts = () => server.api.call('listAccounts', { key: reader.readKey });

const createTag = (name: string) => server.api.call('createTag', { key: reader.writeKey, body: { tag: { name } } });

/** The answer of a request sent while every connection of a pool is held. */
async function whileHeld<T>(
  hold: () => Promise<T>,
  release: (held: T) => Promise<void> | void,
  send: () => Promise<Answer>,
) {
  const held = [await hold(), await hold()];
  try {
    return await send();
  } finally {
    for (const connection of held) await release(connection);
  }
}

type Answer = Awaited<ReturnType<typeof listAccounts>>;

function expectBusy(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('2');
  expect(answer.body).toEqual({
    error: 'service_unavailable',
    message: 'The database cannot be reached or is busy right now; try again in 2 seconds',
    errors: [{ message: 'The database cannot be reached or is busy right now; try again in 2 seconds' }],
  });
}

it('answers 503 with Retry-After, not 500, when no connection comes free in time, and serves again after', async () => {
  // Reads run on the statement pool.
  expectBusy(
    await whileHeld(
      () => server.statements.connect(),
      (client) => client.release(),
      listAccounts,
    ),
  );
  expect((await listAccounts()).status).toBe(200);
  // Units of work run on the ORM's pool.
  const { client } = server.orm.em.getKnex();
  expectBusy(
    await whileHeld(
      () => client.acquireConnection(),
      (connection) => client.releaseConnection(connection),
      () => createTag('Held'),
    ),
  );
  expect((await createTag('Free')).status).toBe(201);
  expect(
    (await server.query('select name from tags where family_id = $1', [reader.familyId])).map((row) => row.name),
  ).toEqual(['Free']);
});

it("keeps imports to a share of the pool: two stuck imports leave another family's reads served", async () => {
  // Inserts into imports wait for this lock, so each import request holding a connection is stuck.
  const blocker = new pg.Client({ connectionString: server.databaseUrl });
  await blocker.connect();
  await blocker.query('begin');
  await blocker.query('lock table imports in share mode');
  const stuck = () =>
    server.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
  const create = () =>
    server.api.call('createImport', {
      key: importer.writeKey,
      body: { raw_file_content: 'date,amount,account\n2024-01-01,1,Checking' },
    });
  const creates: Promise<{ status: number }>[] = [];
  try {
    creates.push(create());
    await until(async () => (await stuck())[0]!.n === 1, 20_000, 'the first import to wait for the lock');
    // The second waits for the first's permit, holding no connection: one stays free for the rest.
    creates.push(create());
    expect((await listAccounts()).status).toBe(200);
    expect((await listAccounts()).status).toBe(200);
    // Units of work share the imports' pool: one of its two connections stays free for them.
    expect((await createTag('While importing')).status).toBe(201);
    expect((await stuck())[0]!.n).toBe(1);
  } finally {
    await blocker.query('rollback');
    await blocker.end();
  }
  expect((await Promise.all(creates)).map((response) => response.status)).toEqual([201, 201]);
});
