/**
 * `npm run bench:balances`: the daily balances and the balance sheet (docs/money.md), each against
 * its limit in one run, on a household of 10 accounts (one with 100,000 transactions over three
 * years, one in EUR with daily rates, a brokerage with trades and monthly prices):
 *
 * 1. The account sync after a write dated three years back on the 100,000-transaction account:
 *    the sync as the job runs it, against the limit (the very statements it sent, replayed without
 *    the TypeScript between them), both rolled back so each run starts from the same stale mark;
 *    and how many daily rows it rewrote (none before the write's date).
 * 2. `GET /balance_sheet?period=1Y` and 3. `GET /balances` for one account and one year, under load
 *    on the service against bench/balances-limit-server.ts (the same code below HTTP).
 *
 * Writes bench/results/balances.json and prints a Markdown table. See bench/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { createAccount } from '../server/accounts/account.service.ts';
import { syncAccount } from '../server/accounts/account-sync.ts';
import { issueApiKey } from '../server/api-keys/api-key.service.ts';
import type { Queryable } from '../server/core/sql.ts';
import { openOrm } from '../server/db/orm.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { startChild, type ChildServer } from './children.ts';
import { CpuSampler, postmasterOf } from './cpu-usage.ts';
import { createBenchDatabase } from './database.ts';
import { measure, type RunFigures, type Scenario } from './load.ts';
import { machineInfo } from './machine.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_BALANCES_RESULTS ?? path.join(ROOT, 'bench', 'results', 'balances.json');
const BIG = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
const DAYS = 3 * 365 + 60; // the big account's history, a little over three years
const RUNS = 3;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const POOL_SIZE = 10;

const log = (message: string) => process.stdout.write(`[bench-balances] ${message}\n`);
const round = (value: number) => Math.round(value * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const children: ChildServer[] = [];
  try {
    const orm = await openOrm(database.url, 2);
    const em = orm.em.fork();
    const { user, family } = await createUserWithFamily(em, {
      email: 'balances-bench@example.test',
      password: 'correct horse battery',
      familyName: 'Balances bench',
    });
    const { key } = await issueApiKey(em, { user, scope: 'read' });
    const open = (name: string, account_type: 'depository' | 'investment' | 'credit_card', currency?: string) =>
      createAccount(em, family.id, { name, account_type, currency, balance: 1000 });
    const accounts = {
      big: await open('Checking', 'depository'),
      euro: await open('Euro savings', 'depository', 'EUR'),
      card: await open('Card', 'credit_card'),
      brokerage: await open('Brokerage', 'investment'),
      others: await Promise.all(Array.from({ length: 6 }, (_, i) => open(`Account ${i + 1}`, 'depository'))),
    };
    await orm.close();
    const seeded = await seed(pool, family.id, accounts);
    log(`seeded ${seeded.entries.toLocaleString('en-US')} entries in ${round(seeded.ms)} ms`);
    await pool.query('vacuum analyze');

    // Every account's history from scratch, as after the migration.
    const everyId = [accounts.big, accounts.euro, accounts.card, accounts.brokerage, ...accounts.others];
    const fullStarted = performance.now();
    const client = await pool.connect();
    let bigFullMs = 0;
    for (const id of everyId) {
      const started = performance.now();
      await client.query('begin');
      await syncAccount(client, id);
      await client.query('commit');
      if (id === accounts.big) bigFullMs = performance.now() - started;
    }
    log(`full syncs of ${everyId.length} accounts: ${round(performance.now() - fullStarted)} ms (the big one ${round(bigFullMs)} ms)`); // prettier-ignore

    // 1. A write three years back, then its sync, against the statements alone.
    const [written] = (
      await client.query(
        `
        with detail as (insert into transactions (id, created_at, updated_at) values (gen_random_uuid(), now(), now()) returning id)
        insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name, created_at, updated_at)
        select gen_random_uuid(), $1, $2, 'Transaction', detail.id, 42.5, 'USD', current_date - interval '3 years', 'Late receipt', now(), now()
          from detail returning to_char(date, 'YYYY-MM-DD') as date`,
        [family.id, accounts.big],
      )
    ).rows as [{ date: string }];
    const sync: number[] = [];
    const replay: number[] = [];
    let rewritten = 0;
    let rewrittenBefore = 0;
    let statements = 0;
    for (let run = 0; run < RUNS; run++) {
      const recorded: Parameters<Queryable['query']>[0][] = [];
      const recorder: Queryable = {
        query: (config) => {
          recorded.push(config);
          return client.query(config as pg.QueryConfig) as never;
        },
      };
      await client.query('begin');
      let started = performance.now();
      await syncAccount(recorder, accounts.big);
      sync.push(performance.now() - started);
      const counts = (
        await client.query(
          `select count(*)::int as rewritten, count(*) filter (where date < $2::date)::int as before
             from balances where account_id = $1 and updated_at = now()`,
          [accounts.big, written.date],
        )
      ).rows[0] as { rewritten: number; before: number };
      ({ rewritten, before: rewrittenBefore } = counts);
      await client.query('rollback');
      statements = recorded.length;
      await client.query('begin');
      started = performance.now();
      for (const config of recorded) await client.query(config as pg.QueryConfig);
      replay.push(performance.now() - started);
      await client.query('rollback');
      log(`run ${run + 1}: sync ${round(sync[run]!)} ms, statements alone ${round(replay[run]!)} ms, ${rewritten} rows rewritten (${rewrittenBefore} before ${written.date})`); // prettier-ignore
    }
    await client.query('begin');
    await syncAccount(client, accounts.big);
    await client.query('commit');
    client.release();

    // 2 and 3: the two reads under load, service and limit.
    const service = await startChild('service', './service-server.ts', {
      DATABASE_URL: database.url,
      DB_POOL_SIZE: String(POOL_SIZE),
    });
    children.push(service);
    const limit = await startChild('limit', './balances-limit-server.ts', {
      DATABASE_URL: database.url,
      DB_POOL_SIZE: String(POOL_SIZE),
      FAMILY_ID: family.id,
    });
    children.push(limit);
    const yearAgo = (await pool.query("select to_char(current_date - interval '1 year', 'YYYY-MM-DD') as d")).rows[0].d;
    const scenarios: Scenario[] = [
      {
        name: 'balance sheet 1Y',
        description: 'GET /api/v1/balance_sheet?period=1Y (10 accounts, 53 weekly points)',
        requests: () => [{ method: 'GET', path: '/api/v1/balance_sheet?period=1Y' }],
      },
      {
        name: 'balances, one account, one year',
        description: `GET /api/v1/balances?account_id=<checking>&start_date=${yearAgo}&per_page=100, pages 1-4`,
        requests: () => {
          let page = 0;
          return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/v1/balances?account_id=${accounts.big}&start_date=${yearAgo}&per_page=100&page=${(page++ % 4) + 1}` }) }]; // prettier-ignore
        },
      },
    ];
    const backend = (await pool.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const cpu = new CpuSampler(
      { load_generator: () => [process.pid], service: () => [service.pid], limit: () => [limit.pid] },
      postmasterOf(backend),
    );
    const reads: { name: string; description: string; service: RunFigures; limit: RunFigures; ratio: number }[] = [];
    for (const scenario of scenarios) {
      const options = { connections: CONNECTIONS, durationSeconds: DURATION, warmupSeconds: 2, headers: { 'x-api-key': key } }; // prettier-ignore
      const onService = await measure(service.baseUrl, scenario, options, cpu);
      const onLimit = await measure(limit.baseUrl, scenario, options, cpu);
      const ratio = onService.requests_per_s_mean / onLimit.requests_per_s_mean;
      reads.push({ name: scenario.name, description: scenario.description, service: onService, limit: onLimit, ratio });
      log(`${scenario.name}: service ${round(onService.requests_per_s_mean)} req/s p50 ${onService.latency_p50_ms} ms, limit ${round(onLimit.requests_per_s_mean)} req/s (${Math.round(ratio * 100)}%)`); // prettier-ignore
    }

    const results = {
      machine: machineInfo(),
      data: { accounts: everyId.length, entries: seeded.entries, bigAccountTransactions: BIG, days: DAYS },
      fullSync: { bigAccountMs: round(bigFullMs) },
      incrementalSync: {
        writeDate: written.date,
        syncMs: sync.map(round),
        statementsAloneMs: replay.map(round),
        medianSyncMs: round(median(sync)),
        medianStatementsMs: round(median(replay)),
        statements,
        rowsRewritten: rewritten,
        rowsRewrittenBeforeTheWrite: rewrittenBefore,
      },
      reads: reads.map((read) => ({
        name: read.name,
        description: read.description,
        connections: CONNECTIONS,
        service: { rps: round(read.service.requests_per_s_mean), p50: read.service.latency_p50_ms, p99: read.service.latency_p99_ms, non2xx: read.service.non_2xx, cpuMsPerRequest: read.service.cpu_ms_per_request }, // prettier-ignore
        limit: { rps: round(read.limit.requests_per_s_mean), p50: read.limit.latency_p50_ms, p99: read.limit.latency_p99_ms, non2xx: read.limit.non_2xx, cpuMsPerRequest: read.limit.cpu_ms_per_request }, // prettier-ignore
        ratio: Math.round(read.ratio * 100) / 100,
      })),
      targets: {
        sync: { target: 'incremental sync <= 1 s', value: round(median(sync)), met: median(sync) <= 1000 },
        onlyFromTheDate: { target: 'no row before the write rewritten', value: rewrittenBefore, met: rewrittenBefore === 0 }, // prettier-ignore
        sheetRatio: { target: 'balance sheet 1Y >= 50% of the limit', value: round(reads[0]!.ratio * 100), met: reads[0]!.ratio >= 0.5 }, // prettier-ignore
        sheetP50: { target: 'balance sheet 1Y p50 <= 20 ms', value: reads[0]!.service.latency_p50_ms, met: reads[0]!.service.latency_p50_ms <= 20 }, // prettier-ignore
      },
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n');
    console.log(`
| balances bench | service | limit | service / limit |
|---|---:|---:|---:|
| sync after a write 3 years back (${BIG.toLocaleString('en-US')} transactions), median of ${RUNS} | ${round(median(sync))} ms | ${round(median(replay))} ms (${statements} statements) | ${Math.round((median(replay) / median(sync)) * 100)}% |
| daily rows rewritten (before the write's date) | ${rewritten} (${rewrittenBefore}) | | |
${reads.map((read) => `| ${read.name}, ${CONNECTIONS} connections | ${round(read.service.requests_per_s_mean)} req/s, p50 ${read.service.latency_p50_ms} / p99 ${read.service.latency_p99_ms} ms | ${round(read.limit.requests_per_s_mean)} req/s, p50 ${read.limit.latency_p50_ms} / p99 ${read.limit.latency_p99_ms} ms | ${Math.round(read.ratio * 100)}% |`).join('\n')}

${Object.values(results.targets)
  .map((t) => `${t.target}: ${t.value} (${t.met ? 'met' : 'missed'})`)
  .join('\n')}
Written to ${path.relative(process.cwd(), RESULTS)}`);
  } finally {
    for (const child of children) await child.stop();
    await pool.end();
    await database.close();
  }
}

/**
 * The household's entries: 100,000 transactions on the big account over DAYS days (every tenth an
 * income), 2,000 on each other account, EUR rates every weekday for four years, and a brokerage with
 * 400 trades in 5 securities and monthly prices.
 */
async function seed(
  pool: pg.Pool,
  familyId: string,
  accounts: { big: string; euro: string; card: string; brokerage: string; others: string[] },
) {
  const started = performance.now();
  const transactions = async (accountId: string, count: number, currency: string) =>
    pool.query(
      `with src as materialized (
         select gen_random_uuid() as entry_id, gen_random_uuid() as detail_id, i,
                (current_date - (i % $4))::date as date, round(((i * 7919) % 9000) / 100.0 + 1, 2) as amount
           from generate_series(1, $3) as i
       ), details as (insert into transactions (id, created_at, updated_at) select detail_id, now(), now() from src)
       insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name, created_at, updated_at)
       select entry_id, $1, $2, 'Transaction', detail_id, case when i % 10 = 0 then -20 * amount else amount end, $5, date,
              'Bench item', now(), now()
         from src`,
      [familyId, accountId, count, DAYS, currency],
    );
  await transactions(accounts.big, BIG, 'USD');
  await transactions(accounts.euro, 2000, 'EUR');
  await transactions(accounts.card, 2000, 'USD');
  for (const id of accounts.others) await transactions(id, 2000, 'USD');
  await pool.query(
    `insert into exchange_rates (family_id, from_currency, to_currency, date, rate, source)
     select $1, 'EUR', 'USD', d::date, round((1.05 + 0.05 * sin(extract(doy from d) / 20.0))::numeric, 4), 'bench'
       from generate_series(current_date - interval '4 years', current_date, interval '1 day') d
      where extract(isodow from d) < 6`,
    [familyId],
  );
  const securities = (
    await pool.query(
      `insert into securities (id, family_id, ticker, kind, created_at, updated_at)
       select gen_random_uuid(), $1, 'BAL' || n, 'standard', now(), now() from generate_series(1, 5) n returning id`,
      [familyId],
    )
  ).rows.map((row) => row.id as string);
  await pool.query(
    `with src as materialized (
       select gen_random_uuid() as entry_id, gen_random_uuid() as trade_id, ($3::uuid[])[1 + i % 5] as security_id,
              (current_date - (($4 * i) / 400))::date as date, (1 + i % 7)::numeric as qty, (50 + i % 40)::numeric as price
         from generate_series(1, 400) as i
     ), details as (
       insert into trades (id, security_id, qty, price, fee, currency, investment_activity_label, created_at, updated_at)
       select trade_id, security_id, qty, price, 0, 'USD', 'Buy', now(), now() from src
     )
     insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name, created_at, updated_at)
     select entry_id, $1, $2, 'Trade', trade_id, qty * price, 'USD', date, 'Bench trade', now(), now() from src`,
    [familyId, accounts.brokerage, securities, DAYS],
  );
  await pool.query(
    `insert into security_prices (security_id, family_id, date, price, currency)
     select s, $1, d::date, 60 + extract(month from d), 'USD'
       from unnest($2::uuid[]) s, generate_series(current_date - interval '4 years', current_date, interval '1 month') d`,
    [familyId, securities],
  );
  const [{ n }] = (await pool.query('select count(*)::int as n from entries where family_id = $1', [familyId])).rows;
  return { entries: n as number, ms: performance.now() - started };
}

await main();
