/**
 * Part of `npm run bench:api`: the account sync job on an investment account with 10,000 trades
 * over 5 years in 20 securities (monthly market prices), then the holdings list of that account
 * under load (50 connections, autocannon) against the service in its own process.
 * Writes bench/results/account-sync.json and prints a Markdown table. See bench/README.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { createAccount } from '../server/accounts/account.service.ts';
import { issueApiKey } from '../server/api-keys/api-key.service.ts';
import { openOrm } from '../server/db/orm.ts';
import { syncAccount } from '../server/accounts/account-sync.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { randomSource } from '../server/demo/random-source.ts';
import { startChild } from './children.ts';
import { createBenchDatabase } from './database.ts';
import { measure, type Scenario } from './load.ts';
import { machineInfo } from './machine.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_SYNC_RESULTS ?? path.join(ROOT, 'bench', 'results', 'account-sync.json');
const TRADES = Number(process.env.BENCH_TRADES ?? 10_000);
const SECURITIES = 20;
const YEARS = 5;
const RUNS = 3;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

const log = (message: string) => process.stdout.write(`[bench-sync] ${message}\n`);
const round = (value: number) => Math.round(value * 10) / 10;

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    const orm = await openOrm(database.url, 2);
    const em = orm.em.fork();
    const { user, family } = await createUserWithFamily(em, {
      email: 'sync-bench@example.test',
      password: 'correct horse battery',
      familyName: 'Sync bench',
    });
    const { key } = await issueApiKey(em, { user, scope: 'read' });
    const accountId = await createAccount(em, family.id, { name: 'Brokerage', account_type: 'investment' });
    await orm.close();

    const seeded = await seed(pool, family.id, accountId);
    log(`seeded ${seeded.trades} trades, ${seeded.prices} prices in ${round(seeded.ms)} ms`);
    await pool.query('vacuum analyze');

    // The job's work, as the task does it: one transaction on one connection.
    const syncs: { ms: number; holdings: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const client = await pool.connect();
      const started = performance.now();
      await client.query('begin');
      await syncAccount(client, accountId);
      const { rows } = await client.query('select count(*)::int as n from holdings where account_id = $1', [accountId]);
      const holdings = rows[0].n as number;
      await client.query('commit');
      syncs.push({ ms: performance.now() - started, holdings });
      client.release();
      log(`sync ${run + 1}: ${round(syncs[run]!.ms)} ms, ${holdings} holdings`);
    }

    const service = await startChild('service', './service-server.ts', {
      DATABASE_URL: database.url,
      DB_POOL_SIZE: '10',
      RATE_LIMIT_PER_ADDRESS: '0',
      RATE_LIMIT_PER_CREDENTIAL: '0',
    });
    let list;
    try {
      const scenario: Scenario = {
        name: 'holdings list',
        description: `GET /api/v1/holdings?account_id=<the account>&per_page=25, pages 1-20`,
        requests: () => {
          let page = 0;
          return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/v1/holdings?account_id=${accountId}&per_page=25&page=${(page++ % 20) + 1}` }) }]; // prettier-ignore
        },
      };
      list = await measure(service.baseUrl, scenario, {
        connections: CONNECTIONS,
        durationSeconds: DURATION,
        warmupSeconds: 2,
        headers: { 'x-api-key': key },
      });
    } finally {
      await service.stop();
    }

    const results = {
      machine: machineInfo(),
      data: { trades: seeded.trades, securities: SECURITIES, years: YEARS, prices: seeded.prices },
      syncMs: { first: round(syncs[0]!.ms), runs: syncs.map((sync) => round(sync.ms)), holdings: syncs[0]!.holdings },
      holdingsList: {
        connections: CONNECTIONS,
        seconds: DURATION,
        requestsPerSecond: round(list.requests_per_s_mean),
        p50Ms: list.latency_p50_ms,
        p99Ms: list.latency_p99_ms,
        non2xx: list.non_2xx,
        errors: list.errors,
      },
      targets: {
        sync: { target: 'sync <= 2 s', value: round(syncs[0]!.ms), met: syncs[0]!.ms <= 2000 },
        list: { target: 'holdings list p99 <= 50 ms at 50 connections', value: list.latency_p99_ms, met: list.latency_p99_ms <= 50 }, // prettier-ignore
      },
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n');
    console.log(`
| account sync bench | value |
|---|---:|
| trades / securities / years | ${seeded.trades.toLocaleString('en-US')} / ${SECURITIES} / ${YEARS} |
| sync (balance + holdings), first / runs | ${round(syncs[0]!.ms)} ms / ${syncs.map((sync) => round(sync.ms)).join(', ')} ms |
| holdings rows | ${syncs[0]!.holdings.toLocaleString('en-US')} |
| holdings list, ${CONNECTIONS} connections | ${round(list.requests_per_s_mean)} req/s, p50 ${list.latency_p50_ms} ms, p99 ${list.latency_p99_ms} ms (${list.non_2xx} non-2xx) |

${Object.values(results.targets)
  .map((t) => `${t.target}: ${t.value} (${t.met ? 'met' : 'missed'})`)
  .join('\n')}
Written to ${path.relative(process.cwd(), RESULTS)}`);
  } finally {
    await pool.end();
    await database.close();
  }
}

/** 20 securities, 10,000 trades spread over 5 years (mostly buys, every fourth a smaller sale), monthly prices. */
async function seed(pool: pg.Pool, familyId: string, accountId: string) {
  const started = performance.now();
  const random = randomSource(42);
  const securities = Array.from({ length: SECURITIES }, (_, i) => ({ id: randomUUID(), ticker: `BENCH${i}` }));
  await pool.query(
    `insert into securities (id, family_id, ticker, kind, created_at, updated_at)
      select id, $1, ticker, 'standard', now(), now() from unnest($2::uuid[], $3::text[]) as s(id, ticker)`,
    [familyId, securities.map((s) => s.id), securities.map((s) => s.ticker)],
  );
  const start = Date.UTC(new Date().getUTCFullYear() - YEARS, 0, 1);
  const span = YEARS * 365 * 86_400_000;
  const trades = Array.from({ length: TRADES }, (_, i) => {
    const security = securities[i % SECURITIES]!;
    const sale = i % 4 === 3;
    return {
      tradeId: randomUUID(),
      entryId: randomUUID(),
      securityId: security.id,
      date: new Date(start + Math.floor((i / TRADES) * span)).toISOString().slice(0, 10),
      qty: sale ? -Math.round(random.between(1, 3)) : Math.round(random.between(2, 8)),
      price: (50 + random.between(0, 100) + i / 100).toFixed(2),
    };
  });
  await pool.query(
    `insert into trades (id, security_id, qty, price, fee, currency, investment_activity_label, created_at, updated_at)
      select id, security_id, qty, price, 0, 'USD', case when qty < 0 then 'Sell' else 'Buy' end, now(), now()
        from unnest($1::uuid[], $2::uuid[], $3::numeric[], $4::numeric[]) as t(id, security_id, qty, price)`,
    [
      trades.map((t) => t.tradeId),
      trades.map((t) => t.securityId),
      trades.map((t) => t.qty),
      trades.map((t) => t.price),
    ],
  );
  await pool.query(
    `insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name, excluded, created_at, updated_at)
      select e.id, $1, $2, 'Trade', e.trade_id, e.qty * e.price, 'USD', e.date, 'Bench trade', false, now(), now()
        from unnest($3::uuid[], $4::uuid[], $5::numeric[], $6::numeric[], $7::date[]) as e(id, trade_id, qty, price, date)`,
    [familyId, accountId, trades.map((t) => t.entryId), trades.map((t) => t.tradeId), trades.map((t) => t.qty), trades.map((t) => t.price), trades.map((t) => t.date)], // prettier-ignore
  );
  const prices = await pool.query(
    `insert into security_prices (security_id, date, price, currency)
      select s.id, d::date, 60 + (extract(month from d) * 3) + s.n, 'USD'
        from (select id, row_number() over (order by ticker) as n from securities where family_id = $1) s,
             generate_series(date_trunc('year', current_date) - interval '${YEARS} years', current_date, interval '1 month') d`,
    [familyId],
  );
  return { trades: TRADES, prices: prices.rowCount ?? 0, ms: performance.now() - started };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
