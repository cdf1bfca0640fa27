import pg from 'pg';
import pino from 'pino';
import { openOrm } from '../server/db/orm.ts';
import { startChild, type ChildServer } from './children.ts';
import { postmasterOf } from './cpu-usage.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import type { Scenario } from './load.ts';
import { SEARCH_WORD, seedHousehold, type SeedResult } from './seed.ts';

export const POOL_SIZE = 10;
export const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
export const BATCH_SIZE = 5_000;
/** The name of every transaction the create scenario writes; they are deleted after each create run. */
export const CREATE_NAME = 'Bench lunch';

export interface BenchContext {
  database: BenchDatabase;
  /** A small pool of the parent for checks and clean-up. */
  pool: pg.Pool;
  seed: SeedResult;
  seedTotalSeconds: number;
  vacuumSeconds: number;
  showIds: string[];
  postgresVersion: string;
  /** PID of the PostgreSQL postmaster when it runs on this machine (for the CPU accounting). */
  postmasterPid: number | null;
  close(): Promise<void>;
}

const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);
export { log };

/** Database, migrations, seed, VACUUM ANALYZE, and a sample of ids for the show scenario. */
export async function prepare(): Promise<BenchContext> {
  const logger = pino({ level: 'warn' });
  log(process.env.BENCH_DATABASE_URL ? 'using BENCH_DATABASE_URL' : 'starting embedded PostgreSQL');
  const database = await createBenchDatabase(logger);
  let pool: pg.Pool | undefined;
  try {
    const orm = await openOrm(database.url, 2);
    log(
      `seeding ${TRANSACTIONS.toLocaleString('en-US')} transactions in batches of ${BATCH_SIZE.toLocaleString('en-US')}`,
    );
    const started = performance.now();
    let seed: SeedResult;
    try {
      seed = await seedHousehold(orm.em.fork(), TRANSACTIONS, BATCH_SIZE);
    } finally {
      await orm.close();
    }
    const seedTotalSeconds = (performance.now() - started) / 1000;
    log(
      `seeded ${seed.rows} rows: insert ${seed.insertSeconds.toFixed(1)} s = ${Math.round(seed.rowsPerSecond)} rows/s`,
    );
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const vacuumStarted = performance.now();
    await pool.query('vacuum analyze');
    const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
    const showIds = (
      await pool.query<{ id: string }>(
        `select id from entries where family_id = $1 and entryable_type = 'Transaction' order by md5(id::text) limit 1000`,
        [seed.familyId],
      )
    ).rows.map((row) => row.id);
    const postgresVersion = (await pool.query<{ v: string }>(`select current_setting('server_version') as v`)).rows[0]!
      .v;
    const backendPid = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    // Local: loopback, or a Unix socket directory (a percent-encoded path as the host).
    const host = decodeURIComponent(new URL(database.url).hostname);
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(host) || host.startsWith('/');
    const postmasterPid = local ? postmasterOf(backendPid) : null;
    const parentPool = pool;
    return {
      database,
      pool,
      seed,
      seedTotalSeconds,
      vacuumSeconds,
      showIds,
      postgresVersion,
      postmasterPid,
      async close() {
        await parentPool.end().catch(() => undefined);
        await database.close();
      },
    };
  } catch (error) {
    await pool?.end().catch(() => undefined);
    await database.close();
    throw error;
  }
}

export function startService(context: BenchContext, extraArgs: string[] = []): Promise<ChildServer> {
  return startChild(
    'service',
    './service-server.ts',
    { DATABASE_URL: context.database.url, DB_POOL_SIZE: String(POOL_SIZE) },
    extraArgs,
  );
}

export function startLimit(context: BenchContext, extraArgs: string[] = []): Promise<ChildServer> {
  return startChild(
    'limit',
    './limit-server.ts',
    {
      DATABASE_URL: context.database.url,
      DB_POOL_SIZE: String(POOL_SIZE),
      FAMILY_ID: context.seed.familyId,
    },
    extraArgs,
  );
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The filtered list: a search within the last year of two accounts. */
function filteredPath(context: BenchContext): string {
  const today = new Date();
  const yearAgo = new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth(), today.getUTCDate()));
  const [checking, , , visa] = context.seed.accountIds;
  return (
    `/api/v1/transactions?search=${SEARCH_WORD}&start_date=${isoDate(yearAgo)}&end_date=${isoDate(today)}` +
    `&account_ids[]=${checking}&account_ids[]=${visa}`
  );
}

/** The filtered list with the search statement of before issue 14, which only the limit server runs. */
export function oldSearchScenario(context: BenchContext): Scenario {
  return {
    name: 'filtered list, old statement',
    description: 'the filtered list on the limit server with the search statement of before issue 14',
    requests: () => [{ method: 'GET', path: `/old-search${filteredPath(context)}` }],
  };
}

/** The four scenarios of the brief. */
export function scenarios(context: BenchContext): Scenario[] {
  const today = new Date();
  const [checking] = context.seed.accountIds;
  const filtered = filteredPath(context);
  const showPaths = context.showIds.map((id) => `/api/v1/transactions/${id}`);
  const checkingId = checking!;
  return [
    {
      name: 'list',
      description: 'GET /api/v1/transactions?per_page=25',
      requests: () => [{ method: 'GET', path: '/api/v1/transactions?per_page=25' }],
    },
    {
      name: 'filtered list',
      description: `GET /api/v1/transactions?search=${SEARCH_WORD}&start_date=<1 year ago>&end_date=<today>&account_ids[]=<checking>&account_ids[]=<visa>`,
      requests: () => [{ method: 'GET', path: filtered }],
    },
    {
      name: 'show',
      description: `GET /api/v1/transactions/{id}, rotating over ${showPaths.length} ids`,
      requests: () => {
        let next = 0;
        return [
          { method: 'GET', setupRequest: (request) => ({ ...request, path: showPaths[next++ % showPaths.length]! }) },
        ];
      },
    },
    {
      name: 'create',
      description: 'POST /api/v1/transactions {transaction: {account_id, date, amount, name, nature}}',
      requests: () => {
        let next = 0;
        return [
          {
            method: 'POST',
            path: '/api/v1/transactions',
            setupRequest: (request) => {
              const n = next++;
              const date = isoDate(new Date(today.getTime() - (n % 30) * 86_400_000));
              const body = {
                transaction: {
                  account_id: checkingId,
                  date,
                  // An integer over 100: 5 + n / 100 in floating point can come out as 5.569999999999999.
                  amount: (500 + (n % 4000)) / 100,
                  name: CREATE_NAME,
                  nature: 'expense',
                },
              };
              return { ...request, body: JSON.stringify(body) };
            },
          },
        ];
      },
    },
  ];
}

/** Removes what a create run wrote, so every run reads and writes the same table sizes. */
export async function deleteCreated(context: BenchContext): Promise<number> {
  const { rowCount } = await context.pool.query(
    `with gone as (delete from entries where family_id = $1 and name = $2 returning entryable_id)
     delete from transactions where id in (select entryable_id from gone)`,
    [context.seed.familyId, CREATE_NAME],
  );
  await context.pool.query('vacuum analyze entries, transactions');
  return rowCount ?? 0;
}
