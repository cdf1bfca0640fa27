import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { queueEveryStaleSync } from '../../server/accounts/account-sync.ts';
import { isConnectionLoss } from '../../server/db/connection-loss.ts';
import { ContractClient } from '../support/contract-client.ts';
import { readBalances } from '../support/fresh-balances.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { until } from '../support/worker-process.ts';

// Issue 27, item 1: `npm start` (API, worker and its embedded PostgreSQL in one process) under
// write load while PostgreSQL crash-restarts (a backend killed: the postmaster ends every session
// and recovers) and while the postmaster itself is killed (npm start starts it again).

let service: ServiceProcess;
let api: ContractClient;
let admin: pg.Client;

/**
 * A statement on the test's own connection, made again if the database cut it (the orphaned
 * backends of a killed postmaster end their sessions a while after it died).
 */
async function query<Row = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<Row[]> {
  try {
    return (await admin.query(text, values)).rows as Row[];
  } catch (error) {
    if (!isConnectionLoss(error)) throw error;
    await admin.end().catch(() => undefined);
    admin = await service.connect();
    return (await admin.query(text, values)).rows as Row[];
  }
}

beforeAll(async () => {
  service = await startServiceProcess({
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_CREDENTIAL: '0',
    WORKER_POLL_INTERVAL_MS: '200',
  });
  api = new ContractClient(service.baseUrl);
  admin = await service.connect();
}, 180_000);

afterAll(async () => {
  await admin?.end().catch(() => undefined);
  await service?.stop();
});

/** Creates transactions from eight clients at once until stopped; keeps the id of every 201. */
function writeLoad(accounts: string[]) {
  const created: string[] = [];
  const statuses = new Map<number, number>();
  let running = true;
  const client = async (n: number) => {
    for (let i = n; running; i += 8) {
      // A refused connection (the service gone) counts as status 0.
      const response = await api
        .call('createTransaction', {
          key: service.key,
          body: {
            transaction: {
              account_id: accounts[i % accounts.length],
              date: '2026-10-01',
              amount: 1.25,
              name: `Load ${i}`,
            },
          } as never,
        })
        .catch(() => ({ status: 0, body: undefined }));
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 201) created.push(response.body.data.id);
      if (response.status === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const clients = Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
  return {
    created,
    statuses,
    /** Resolves once `count` more creates than now have succeeded. */
    moreCreated: (count: number) => {
      const target = created.length + count;
      return until(async () => created.length >= target, 90_000, `${count} more transactions created`);
    },
    stop: async () => {
      running = false;
      await clients;
    },
  };
}

describe('a database restart under load', () => {
  it('costs some 503s, then every write, job and balance is as if nothing happened', async () => {
    // The service's own account of what happened, for whoever reads a failure.
    onTestFailed(() =>
      console.error(
        service
          .logs()
          .split('\n')
          .filter((line) => !line.includes('"msg":"request"'))
          .slice(-150)
          .join('\n'),
      ),
    );
    const accounts = await api.call('listAccounts', { key: service.key, query: { per_page: 100 } });
    const cash = (accounts.body.data as { id: string; account_type: string }[])
      .filter((account) => account.account_type === 'depository' || account.account_type === 'credit_card')
      .map((account) => account.id);
    expect(cash.length).toBeGreaterThan(1);
    const load = writeLoad(cash);
    await load.moreCreated(100);

    // A crash of one backend: PostgreSQL ends every session and recovers.
    const [backend] = await query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = 'finance' and backend_type = 'client backend'
         and pid <> pg_backend_pid() and state = 'active' order by pid limit 1`,
    );
    process.kill(backend!.pid, 'SIGKILL');
    await load.moreCreated(100);

    // The postmaster itself: npm start owns it and starts it again, even while one of its
    // backends is deep in a statement: such an orphan runs on until its statement ends (here, a
    // cross join bounded only by its timeout) and holds the dead postmaster's shared memory.
    const busy = await service.connect();
    await busy.query(`set statement_timeout = '240s'`);
    const busyPid = (await busy.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const busyStatement = busy
      .query('select count(*) from generate_series(1, 100000) a, generate_series(1, 100000) b')
      .catch(() => undefined);
    await until(
      async () =>
        (await query('select 1 from pg_stat_activity where pid = $1 and state = $2', [busyPid, 'active'])).length > 0,
      10_000,
      'the long statement to run',
    );
    const postmaster = Number((await readFile(path.join(service.clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    await load.moreCreated(100);
    await load.stop();
    await busyStatement;
    await busy.end().catch(() => undefined);

    expect(service.child.exitCode).toBeNull();
    expect(service.logs()).toContain('embedded PostgreSQL running again');
    // Failures were answered as the contract says (503 with Retry-After), never as a 500.
    expect([...load.statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);

    // Every create that was answered 201 is stored.
    const [{ stored }] = (await query<{ stored: number }>(
      "select count(*)::int as stored from entries where id = any($1::uuid[]) and entryable_type = 'Transaction'",
      [load.created],
    )) as [{ stored: number }];
    expect(stored).toBe(load.created.length);

    // Every job ran: nothing waits, nothing is locked; what stays is only runs a newer job of the
    // same key replaced while they ran (graphile-worker keeps those, spent).
    const settled = async () => {
      const [row] = await query<{ waiting: number }>(
        `select count(*)::int as waiting from graphile_worker.jobs
           where attempts < max_attempts or locked_at is not null or key is not null`,
      );
      return row!.waiting === 0;
    };
    await until(settled, 90_000, 'every job to run');

    // Balances equal a recomputation from scratch.
    const incremental = await readBalances((text) => query(text));
    await query(`update accounts set balances_stale_from = '-infinity'`);
    await queueEveryStaleSync(admin);
    await until(settled, 90_000, 'the recomputation');
    expect(await readBalances((text) => query(text))).toEqual(incremental);
  }, 300_000);
});
