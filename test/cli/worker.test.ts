import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../server/jobs/worker.ts';
import { releaseDeadWorkers } from '../../server/jobs/worker-liveness.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { spawnWorker as spawnProcess, until, type WorkerProcess } from '../support/worker-process.ts';

let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
});
afterAll(() => server?.close());

const spawnWorker = (env: Record<string, string> = {}) => spawnProcess(server.databaseUrl, env);

async function accountWithPendingSync(name: string): Promise<string> {
  const account = await server.api.call('createAccount', {
    key: household.writeKey,
    body: { account: { name, account_type: 'depository', balance: 100 } },
  });
  const id = account.body.data.id as string;
  await server.api.call('createTransaction', {
    key: household.writeKey,
    body: { transaction: { account_id: id, amount: 40, date: '2024-01-02', name: 'Groceries', nature: 'expense' } },
  });
  return id;
}

/** The niceness of the scheduling group of `pid`'s session (Linux autogroups). */
const autogroupNiceness = (pid: number) =>
  Number(/ nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1]);

const pendingJobs = async () =>
  Number((await server.query<{ n: string }>('select count(*) as n from graphile_worker.jobs'))[0]!.n);
const lockedBy = async () =>
  (await server.query<{ locked_by: string | null }>('select locked_by from graphile_worker.jobs'))[0]?.locked_by;
const balanceCents = async (id: string) =>
  (await server.api.call('getAccount', { key: household.readKey, params: { id } })).body.data.balance_cents;

describe('npm run worker', () => {
  it('runs the queued account sync on its own and stops cleanly on SIGTERM', async () => {
    const id = await accountWithPendingSync('Checking');
    expect(await pendingJobs()).toBe(1);
    const worker = spawnWorker();
    try {
      await until(async () => (await pendingJobs()) === 0, 30_000, 'the worker to run the sync');
      expect(await balanceCents(id)).toBe(6000);
      expect(worker.output()).toContain('worker running');
    } finally {
      worker.process.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
  }, 60_000);

  it("yields the CPU to requests: its process and its connections' backends run at WORKER_NICENESS", async () => {
    const worker = spawnWorker({ WORKER_NICENESS: '19' });
    const backendsAt19 = async () => {
      const backends = await server.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`,
      );
      return backends.filter(({ pid }) => os.getPriority(pid) === 19);
    };
    try {
      await until(async () => worker.output().includes('worker running'), 30_000, 'the worker to start');
      expect(os.getPriority(worker.process.pid)).toBe(19);
      // Each of its threads (the garbage collector's helpers among them), where the kernel lists them.
      const taskDirectory = `/proc/${worker.process.pid}/task`;
      if (existsSync(taskDirectory)) {
        const threads = readdirSync(taskDirectory).map(Number);
        expect(threads.length).toBeGreaterThan(1);
        expect(threads.filter((thread) => os.getPriority(thread) !== 19)).toEqual([]);
      }
      await until(async () => (await backendsAt19()).length > 0, 10_000, 'a backend of the worker at niceness 19');
      // The requests' backends keep the database's own niceness.
      const [own] = await server.query<{ pid: number }>('select pg_backend_pid() as pid');
      expect(os.getPriority(own!.pid)).toBeLessThan(19);
      // Where the kernel shares the CPU by session first, each backend's session (its own) is lowered too.
      if (existsSync(`/proc/${own!.pid}/autogroup`)) {
        for (const { pid } of await backendsAt19()) expect(autogroupNiceness(pid)).toBe(19);
        expect(autogroupNiceness(own!.pid)).toBeLessThan(19);
      }
    } finally {
      worker.process.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
  }, 60_000);

  it('frees the job of a worker killed mid-job when the next worker starts, and never a live one', async () => {
    const id = await accountWithPendingSync('Savings');
    // The sync waits for the account row, which this transaction holds: the job stays running.
    const blocker = new pg.Client({ connectionString: server.databaseUrl });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('select 1 from accounts where id = $1 for update', [id]);
    const first = spawnWorker();
    let second: WorkerProcess | undefined;
    try {
      await until(async () => !!(await lockedBy()), 30_000, 'the first worker to take the job');
      const holder = await lockedBy();
      // Past the grace a fresh lock gets, a live worker's job is still not taken from it.
      await until(
        async () =>
          (await server.query("select 1 from graphile_worker.jobs where locked_at < now() - interval '6 seconds'"))
            .length > 0,
        30_000,
        'the lock to age',
      );
      expect(await releaseDeadWorkers(server.databaseUrl)).toEqual([]);
      expect(await lockedBy()).toBe(holder);

      first.process.kill('SIGKILL');
      await first.exited;
      await blocker.query('rollback');
      // Dead, the worker still holds the job (graphile-worker alone would wait about four hours).
      expect(await lockedBy()).toBe(holder);
      expect(await balanceCents(id)).toBe(10000);

      second = spawnWorker();
      await until(async () => (await pendingJobs()) === 0, 30_000, 'the next worker to run the freed job');
      expect(await balanceCents(id)).toBe(6000);
      const released = second
        .output()
        .split('\n')
        .filter((line) => line.includes('released the jobs of workers that no longer run'))
        .map((line) => JSON.parse(line) as { lockerIds: string[] });
      expect(released).toEqual([expect.objectContaining({ lockerIds: [holder] })]);
    } finally {
      first.process.kill('SIGKILL');
      second?.process.kill('SIGTERM');
      await blocker.end();
    }
    expect(await second!.exited).toBe(0);
  }, 90_000);

  it('claims its runners again when its liveness connection is cut', async () => {
    const livenessLocks = async () =>
      Number(
        (
          await server.query<{ n: string }>(
            `select count(*) as n from pg_locks l join pg_stat_activity a using (pid)
             where l.locktype = 'advisory' and a.application_name = 'graphile-worker liveness'
               and a.datname = current_database()`,
          )
        )[0]!.n,
      );
    const worker = await startWorker({ connectionString: server.databaseUrl, concurrency: 1, pollIntervalMs: 200 });
    try {
      // One lock per runner: the main one and the assistant's.
      await until(async () => (await livenessLocks()) === 2, 10_000, 'the runners to be claimed');
      await server.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where application_name = 'graphile-worker liveness' and datname = current_database()`,
      );
      await until(async () => (await livenessLocks()) === 0, 10_000, 'the cut connection to go');
      await until(async () => (await livenessLocks()) === 2, 10_000, 'the runners to be claimed again');
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
