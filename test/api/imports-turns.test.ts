import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSettings } from '../../server/config.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { until } from '../support/worker-process.ts';

/** Imports of at most 3 rows and 1,500 staged bytes, to show the limits with small files. */
let server: TestServer;
/** Imports whose every statement may take 1.5 s. */
let impatient: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let account: string;
let otherAccount: string;

const DAY = 86_400_000;

beforeAll(async () => {
  server = await startTestServer({ imports: { ...importSettings({}), maxRows: 3, maxStagedBytes: 1500 } });
  impatient = await startTestServer({ imports: { ...importSettings({}), statementTimeoutMs: 1500 } });
  household = await createHousehold(server);
  other = await createHousehold(server);
  account = (
    await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Checking', account_type: 'depository' } },
    })
  ).body.data.id;
  otherAccount = (
    await server.api.call('createAccount', {
      key: other.writeKey,
      body: { account: { name: 'Theirs', account_type: 'depository' } },
    })
  ).body.data.id;
  // Every time an import's work starts (it leaves the queue) or ends (it leaves its work status).
  await server.query('create table import_log (n bigserial primary key, import_id uuid, event text)');
  await server.query(`create function log_import() returns trigger language plpgsql as $$
    begin
      if old.queued_at is not null and new.queued_at is null then
        insert into import_log (import_id, event) values (new.id, 'start ' || new.status);
      end if;
      if new.status is distinct from old.status and old.status in ('staging', 'importing', 'reverting') then
        insert into import_log (import_id, event) values (new.id, 'end ' || old.status);
      end if;
      return null;
    end $$`);
  await server.query('create trigger log_import after update on imports for each row execute function log_import()');
  await server.drainJobs();
});
afterAll(async () => {
  await server?.close();
  await impatient?.close();
});

const csv = (rows: number, name = 'Row') =>
  ['date,amount,name', ...Array.from({ length: rows }, (_, i) => `2024-03-0${(i % 9) + 1},-1.50,${name} ${i}`)].join(
    '\n',
  );

function create(body: Record<string, unknown>, who = household, on = server) {
  return on.api.call('createImport', { key: who.writeKey, body: { account_id: account, ...body } });
}
const show = (id: string, who = household, on = server) =>
  on.api.call('getImport', { key: who.readKey, params: { id } });
const remove = (id: string, who = household) => server.api.call('deleteImport', { key: who.writeKey, params: { id } });
const publish = (id: string, who = household, on = server) =>
  on.api.call('publishImport', { key: who.writeKey, params: { id } });
const stagedRows = async (id: string, on = server) =>
  (await on.query<{ n: number }>('select count(*)::int as n from import_rows where import_id = $1', [id]))[0]!.n;

/** The import log as `<import name> <event>` lines, names given by `names` (import id -> name). */
async function log(names: Record<string, string>) {
  const rows = await server.query<{ n: string; import_id: string; event: string }>(
    'delete from import_log returning n, import_id, event',
  );
  return rows
    .sort((a, b) => Number(a.n) - Number(b.n))
    .filter((row) => names[row.import_id])
    .map((row) => `${names[row.import_id]} ${row.event}`);
}

/** Import jobs waiting in the lane (not spent), by task and import. */
const laneJobs = () =>
  server.query<{ task_identifier: string; import_id: string }>(
    `select task_identifier, split_part(key, ':', 2) as import_id from graphile_worker.jobs
     where queue_name = 'imports' and attempts < max_attempts order by run_at, id`,
  );

/** A transaction of its own holding `lock`, until `release` is called. */
async function holding(on: TestServer, lock: string) {
  const client = new pg.Client({ connectionString: on.databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query(lock);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}

/**
 * Runs `work` while `lock` is held, until the first statement that waits for it has been cancelled
 * by the statement timeout; then lets go, so that what the job does next (saying why it stopped)
 * is not held up too.
 */
async function whileCancelled(on: TestServer, lock: string, work: () => Promise<void>) {
  const release = await holding(on, lock);
  const waiting = () =>
    on.query<{ pid: number; query_start: string }>(
      `select pid, query_start::text from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`,
    );
  let done: Promise<void> | undefined;
  try {
    done = work();
    let first: { pid: number; query_start: string } | undefined;
    await until(async () => (first = (await waiting())[0]) !== undefined, 30_000, 'a statement to wait for the lock');
    await until(
      async () => !(await waiting()).some((row) => row.pid === first!.pid && row.query_start === first!.query_start),
      30_000,
      'the statement to be cancelled',
    );
  } finally {
    await release();
    await done;
  }
}

describe('limits of one import', () => {
  it('reads exactly IMPORT_MAX_ROWS rows and refuses one more as a file error, staging nothing', async () => {
    const three = await create({ raw_file_content: csv(3) });
    await server.drainJobs();
    expect((await show(three.body.data.id)).body.data).toMatchObject({ status: 'pending', rows_count: 3, error: null });

    const four = await create({ raw_file_content: csv(4), publish: 'true' });
    expect(four.status).toBe(201);
    await server.drainJobs();
    const refused = (await show(four.body.data.id)).body.data;
    expect(refused).toMatchObject({
      status: 'pending',
      rows_count: 0,
      error: 'the CSV has more than 3 data rows, the most an import may have',
      stats: { valid_rows_count: 0, invalid_rows_count: 0, imported_count: 0 },
    });
    expect(await stagedRows(refused.id)).toBe(0);
    const rows = await server.api.call('listImportRows', { key: household.readKey, params: { id: refused.id } });
    expect(rows.body.meta.total_count).toBe(0);
    expect((await publish(refused.id)).body.message).toBe(
      'The CSV cannot be read with this configuration: the CSV has more than 3 data rows, the most an import may have',
    );
  });

  it('refuses rows that take more than IMPORT_MAX_STAGED_BYTES once read, naming the limit', async () => {
    const small = await create({ raw_file_content: csv(2) });
    // Two rows of 800-character notes: small as CSV, above 1,500 bytes once their cells and values are kept.
    const large = await create({
      raw_file_content: `date,amount,notes\n${`2024-03-01,1,${'n'.repeat(800)}\n`.repeat(2)}`,
    });
    await server.drainJobs();
    expect((await show(small.body.data.id)).body.data).toMatchObject({ status: 'pending', rows_count: 2, error: null });
    expect((await show(large.body.data.id)).body.data).toMatchObject({
      status: 'pending',
      rows_count: 0,
      error: 'the rows take more than 1500 bytes once read (cells, values and problems), the most an import may stage',
    });
    expect(await stagedRows(large.body.data.id)).toBe(0);
  });
});

describe("a family's imports run one at a time, in order, and families take turns", () => {
  it('reads and writes each import in turn, in the order asked, while the others wait with a queue position', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await create({ raw_file_content: csv(1, `Turn ${i}`), publish: 'true' })).body.data.id);
    const waiting = await Promise.all(ids.map(async (id) => (await show(id)).body.data));
    expect(waiting.map((item) => [item.status, item.queue_position])).toEqual([
      ['staging', 1],
      ['staging', 2],
      ['staging', 3],
    ]);
    // Only the first one's job is queued; the others wait in the family's queue, not the job queue.
    expect(await laneJobs()).toEqual([{ task_identifier: 'import_stage', import_id: ids[0] }]);
    // A waiting import cannot be published yet.
    expect((await publish(ids[1]!)).body.message).toBe('Only a pending import can be published (this one is staging)');

    await server.drainJobs();
    const names = Object.fromEntries(ids.map((id, i) => [id, `i${i}`]));
    // Published on create, a transaction import is written while it is read: one job each.
    expect(await log(names)).toEqual(
      ['i0', 'i1', 'i2'].flatMap((name) => [`${name} start staging`, `${name} end staging`]),
    );
    for (const id of ids) {
      expect((await show(id)).body.data).toMatchObject({ status: 'complete', queue_position: null });
    }
  });

  it("does not let one family's ten imports delay another family's first", async () => {
    const mine: string[] = [];
    for (let i = 0; i < 10; i++) mine.push((await create({ raw_file_content: csv(1) })).body.data.id);
    const theirs = (await create({ raw_file_content: csv(1), account_id: otherAccount }, other)).body.data.id as string;
    expect((await show(theirs, other)).body.data.queue_position).toBe(1);
    expect((await show(mine[9]!)).body.data.queue_position).toBe(10);
    expect(await laneJobs()).toEqual([
      { task_identifier: 'import_stage', import_id: mine[0] },
      { task_identifier: 'import_stage', import_id: theirs },
    ]);

    await server.drainJobs();
    const names = { ...Object.fromEntries(mine.map((id, i) => [id, `mine${i}`])), [theirs]: 'theirs' };
    const starts = (await log(names)).filter((line) => line.endsWith('start staging'));
    expect(starts).toEqual([
      'mine0 start staging',
      'theirs start staging',
      ...mine.slice(1).map((_, i) => `mine${i + 1} start staging`),
    ]);
  });

  it('gives families their turn back when an outage spent an import job or lost the passing on', async () => {
    // One family: the first import's job spent all its attempts (the database was away for them).
    const first = (await create({ raw_file_content: csv(1, 'Spent') })).body.data.id as string;
    const second = (await create({ raw_file_content: csv(1, 'Behind') })).body.data.id as string;
    await server.query(
      `update graphile_worker._private_jobs set attempts = max_attempts, last_error = 'connection lost' where key = $1`,
      [`import_stage:${first}`],
    );
    // The other: the turn was left but never passed on, so its queue waits with no holder and no job.
    const orphan = (await create({ raw_file_content: csv(1, 'Orphan'), account_id: otherAccount }, other)).body.data
      .id as string;
    await server.query('update imports set holds_turn = false where id = $1', [orphan]);
    await server.query('delete from graphile_worker._private_jobs where key = $1', [`import_stage:${orphan}`]);
    await server.drainJobs();
    expect((await show(first)).body.data).toMatchObject({ status: 'staging', queue_position: 1 });
    expect((await show(second)).body.data).toMatchObject({ status: 'staging', queue_position: 2 });
    expect((await show(orphan, other)).body.data).toMatchObject({ status: 'staging', queue_position: 1 });

    await server.query(`select graphile_worker.add_job('import_revive', '{}')`);
    await server.drainJobs();
    for (const [id, who] of [
      [first, household],
      [second, household],
      [orphan, other],
    ] as const) {
      expect((await show(id, who)).body.data).toMatchObject({ status: 'pending', queue_position: null });
    }
    // Families whose imports run as they should are left alone: nothing is queued for them.
    await server.query(`select graphile_worker.add_job('import_revive', '{}')`);
    await server.drainJobs();
    expect(await laneJobs()).toEqual([]);
  });
});

describe('imports left unwritten expire', () => {
  it('removes the rows and CSV of a pending or failed import untouched for IMPORT_EXPIRY_DAYS, and nothing else', async () => {
    const pending = (await create({ raw_file_content: csv(2) })).body.data.id as string;
    // Its row names an account the family does not have.
    const failed = (
      await server.api.call('createImport', {
        key: household.writeKey,
        body: { raw_file_content: 'date,amount,account\n2024-03-01,1,Nowhere', publish: 'true' },
      })
    ).body.data.id as string;
    const written = (await create({ raw_file_content: csv(1), publish: 'true' })).body.data.id as string;
    await server.drainJobs();
    expect((await show(failed)).body.data.status).toBe('failed');
    const expire = async () => {
      await server.query(`select graphile_worker.add_job('import_expire', '{}')`);
      await server.drainJobs();
    };
    try {
      server.time.advance(6 * DAY);
      await expire();
      expect((await show(pending)).body.data.status).toBe('pending');
      expect(await stagedRows(pending)).toBe(2);

      server.time.advance(2 * DAY);
      await expire();
      for (const id of [pending, failed]) {
        expect((await show(id)).body.data).toMatchObject({
          status: 'expired',
          error: 'The import expired: it stayed unwritten for 7 days, so its rows and its CSV were removed',
        });
        const [record] = await server.query<{ file_id: string | null; files: number }>(
          `select file_id, (select count(*)::int from import_files f
             where not exists (select from imports where file_id = f.id)) as files
           from imports where id = $1`,
          [id],
        );
        // The CSV went with the pointer to it, and left no untaken file behind.
        expect(record).toEqual({ file_id: null, files: 0 });
        expect(await stagedRows(id)).toBe(0);
      }
      expect((await show(written)).body.data.status).toBe('complete');
      expect(await stagedRows(written)).toBe(1);

      expect((await publish(pending)).body.message).toBe(
        'Only a pending import can be published (this one is expired)',
      );
      const change = await server.api.call('updateImport', {
        key: household.writeKey,
        params: { id: pending },
        body: { date_format: '%Y-%m-%d' },
      });
      expect(change.body.message).toBe('Only a pending import can be changed (this one is expired)');
      expect((await remove(pending)).status).toBe(200);
    } finally {
      server.time.reset();
    }
  });
});

describe('DELETE /imports/{id}', () => {
  it('deletes a pending import with its rows; 404 for another family and afterwards, 403 for a read key', async () => {
    const id = (await create({ raw_file_content: csv(3) })).body.data.id as string;
    await server.drainJobs();
    expect(await stagedRows(id)).toBe(3);
    expect((await remove(id, other)).status).toBe(404);
    expect((await server.api.call('deleteImport', { key: household.readKey, params: { id } })).status).toBe(403);
    const deleted = await remove(id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id, deleted: true } });
    expect((await show(id)).status).toBe(404);
    expect((await remove(id)).status).toBe(404);
    expect(await stagedRows(id)).toBe(0);
  });

  it('refuses an import that wrote something until it is reverted', async () => {
    const id = (await create({ raw_file_content: csv(1), publish: 'true' })).body.data.id as string;
    await server.drainJobs();
    const refused = await remove(id);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(
      'Only an import that has written nothing can be deleted (this one is complete); revert it first',
    );
    await server.api.call('revertImport', { key: household.writeKey, params: { id } });
    await server.drainJobs();
    expect((await remove(id)).status).toBe(200);
  });

  it('deletes an import waiting to be read, and the next one waiting gets the turn', async () => {
    const first = (await create({ raw_file_content: csv(1) })).body.data.id as string;
    const second = (await create({ raw_file_content: csv(2) })).body.data.id as string;
    expect((await remove(first)).status).toBe(200);
    expect((await show(second)).body.data.queue_position).toBe(1);
    expect((await laneJobs()).map((job) => job.import_id)).toEqual([first, second]);
    await server.drainJobs();
    expect((await show(second)).body.data).toMatchObject({ status: 'pending', rows_count: 2 });
  });

  it('refuses an import being read, without waiting for the job', async () => {
    const id = (await create({ raw_file_content: csv(2) })).body.data.id as string;
    // The job starts reading, then waits for this lock to stage its rows.
    const release = await holding(server, 'lock table import_rows in share mode');
    let drained: Promise<void> | undefined;
    try {
      drained = server.drainJobs();
      await until(async () => (await show(id)).body.data.queue_position === null, 20_000, 'the reading to start');
      const refused = await remove(id);
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe('The import is being read; it can be deleted once it is pending');
      const change = await server.api.call('updateImport', {
        key: household.writeKey,
        params: { id },
        body: { name_col_label: 'name' },
      });
      expect(change.body.message).toBe('The import is being read; it can be changed once it is pending');
    } finally {
      await release();
      await drained;
    }
    expect((await show(id)).body.data).toMatchObject({ status: 'pending', rows_count: 2 });
    expect((await remove(id)).status).toBe(200);
  });

  it('stays consistent under 24 concurrent deletes and publishes of six imports while jobs run', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await create({ raw_file_content: csv(2, `Race ${i}`) })).body.data.id);
    await server.drainJobs();
    const requests = ids.flatMap((id) => [remove(id), publish(id), remove(id), publish(id)]);
    const [answers] = await Promise.all([Promise.all(requests), server.drainJobs()]);
    await server.drainJobs();
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => [200, 202, 404, 422].includes(status))).toBe(true);
    for (const [i, id] of ids.entries()) {
      const mine = statuses.slice(i * 4, i * 4 + 4);
      // Whichever came first won: deleted (then 404s and 422s), or published (then 422s).
      expect(mine.filter((status) => status === 200 || status === 202)).toHaveLength(1);
      const detail = await show(id);
      const [entries] = await server.query<{ n: number }>(
        'select count(*)::int as n from entries where import_id = $1',
        [id],
      );
      if (mine.includes(200)) {
        expect(detail.status).toBe(404);
        expect(entries!.n).toBe(0);
        expect(await stagedRows(id)).toBe(0);
      } else {
        expect(detail.body.data).toMatchObject({ status: 'complete', stats: { imported_count: 2 } });
        expect(entries!.n).toBe(2);
      }
    }
    // Nothing of the family is left waiting or holding a turn.
    const [left] = await server.query<{ n: number }>(
      'select count(*)::int as n from imports where family_id = $1 and (holds_turn or queued_at is not null)',
      [household.familyId],
    );
    expect(left!.n).toBe(0);
  });
});

describe('a statement timeout on import work', () => {
  let impatientHousehold: TestHousehold;
  let impatientAccount: string;
  beforeAll(async () => {
    impatientHousehold = await createHousehold(impatient);
    impatientAccount = (
      await impatient.api.call('createAccount', {
        key: impatientHousehold.writeKey,
        body: { account: { name: 'Checking', account_type: 'depository' } },
      })
    ).body.data.id;
    await impatient.drainJobs();
  });
  const createHere = (body: Record<string, unknown>) =>
    create({ account_id: impatientAccount, ...body }, impatientHousehold, impatient);

  it('stops reading a CSV whose step waits past IMPORT_STATEMENT_TIMEOUT_MS: pending, saying so, nothing staged', async () => {
    const id = (await createHere({ raw_file_content: csv(2) })).body.data.id as string;
    await whileCancelled(impatient, 'lock table import_rows in share mode', () => impatient.drainJobs());
    expect((await show(id, impatientHousehold, impatient)).body.data).toMatchObject({
      status: 'pending',
      rows_count: 0,
      error: 'reading the CSV was stopped: one of its steps took longer than the 1500 ms an import step may take',
    });
    expect(await stagedRows(id, impatient)).toBe(0);
  });

  it('fails an import whose write waits past it, at once and with nothing written', async () => {
    const id = (await createHere({ raw_file_content: csv(2) })).body.data.id as string;
    await impatient.drainJobs();
    expect((await publish(id, impatientHousehold, impatient)).status).toBe(202);
    await whileCancelled(impatient, 'lock table entries in share mode', () => impatient.drainJobs());
    expect((await show(id, impatientHousehold, impatient)).body.data).toMatchObject({
      status: 'failed',
      error:
        'The import was stopped: one of its steps took longer than the 1500 ms an import step may take; nothing was written',
      queue_position: null,
    });
    // Failed on its first attempt: no retry is left queued.
    expect(await impatient.query(`select 1 from graphile_worker.jobs where key like '%:' || $1`, [id])).toEqual([]);
    expect(await impatient.query('select 1 from entries where import_id = $1', [id])).toEqual([]);
  });
});
