import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { spawnWorker, until } from '../support/worker-process.ts';

let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
});
afterAll(() => server?.close());

const ROWS = 20_000;

it('a worker killed in the middle of an import leaves nothing; the next one writes every row exactly once', async () => {
  const account = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name: 'Checking', account_type: 'depository' } },
  });
  const csv = [
    'date,amount,name,category,tags',
    ...Array.from(
      { length: ROWS },
      (_, i) => `2024-01-${String((i % 28) + 1).padStart(2, '0')},-${i + 1}.25,Row ${i},Cat ${i % 7},t${i % 3}`,
    ),
  ].join('\n');
  const created = await server.api.call('createImport', {
    key: household.writeKey,
    body: { raw_file_content: csv, account_id: account.body.data.id, publish: 'true' },
  });
  // The worker writes the CSV as it reads it (publish on create), in one transaction.
  expect(created.body.data.status).toBe('staging');
  const id = created.body.data.id as string;
  const progress = async () =>
    (
      await server.query<{ imported_count: number; status: string }>(
        'select imported_count, status from imports where id = $1',
        [id],
      )
    )[0]!;
  const written = async () =>
    Number((await server.query<{ n: string }>('select count(*) as n from entries where import_id = $1', [id]))[0]!.n);

  const doomed = spawnWorker(server.databaseUrl);
  try {
    // Progress is visible from outside the job's transaction while the rows go in.
    await until(async () => (await progress()).imported_count > 0, 60_000, 'the import to report progress');
  } finally {
    doomed.process.kill('SIGKILL');
  }
  await doomed.exited;
  // The dead worker still locks the job. The next worker frees it at start-up once the lock is past
  // its 5 s grace (server/jobs/worker-liveness.ts); a younger lock waits for the next sweep, 60 s on.
  await until(
    async () =>
      (await server.query("select 1 from graphile_worker.jobs where locked_at < now() - interval '6 seconds'")).length >
      0,
    30_000,
    "the dead worker's lock to age",
  );
  const interrupted = await progress();
  expect(interrupted.status).toBe('staging');
  expect(interrupted.imported_count).toBeLessThan(ROWS);
  // Nothing of the killed run's transaction remains.
  expect(await written()).toBe(0);
  expect(await server.query('select name from categories where family_id = $1', [household.familyId])).toEqual([]);

  const next = spawnWorker(server.databaseUrl);
  try {
    await until(async () => (await progress()).status === 'complete', 120_000, 'the next worker to finish the import');
  } finally {
    next.process.kill('SIGTERM');
  }
  await next.exited;
  expect(next.output()).toContain('released the jobs of workers that no longer run');
  expect((await progress()).imported_count).toBe(ROWS);
  expect(await written()).toBe(ROWS);
  const [sums] = await server.query<{ total: string; distinct_names: number; categories: number; taggings: number }>(
    `select sum(amount)::text as total, count(distinct name)::int as distinct_names,
       (select count(*)::int from categories where family_id = $2) as categories,
       (select count(*)::int from taggings g join entries e on e.entryable_id = g.taggable_id where e.import_id = $1) as taggings
     from entries where import_id = $1`,
    [id, household.familyId],
  );
  // Amounts 1.25 .. 40000.25 stored as outflows: sum = n(n+1)/2 + 0.25n.
  expect(sums).toEqual({
    total: String((ROWS * (ROWS + 1)) / 2 + ROWS / 4) + '.0000',
    distinct_names: ROWS,
    categories: 7,
    taggings: ROWS,
  });
}, 240_000);
