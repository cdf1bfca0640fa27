/**
 * Mixed traffic on the whole system (`npm run bench:load`): the hot paths together, as a
 * household's apps send them, against one API process and then two (each its own Node process
 * and pool), with one worker process running the jobs the writes queue (account syncs), all on
 * one PostgreSQL holding the 100,000-transaction household of the API bench.
 *
 * Each connection repeats a cycle of ten requests: five shows and two lists (70% reads), a create
 * and an amount update (20% writes), one search (10%). With two API processes each gets half of
 * the connections, as a round-robin balancer would give them. Reported per layout: requests/s,
 * p50/p99, status codes (a 5xx fails the run). After each run the job queue must drain with no
 * failed job, and every account balance must be what a sync computes from its entries.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AutocannonRequest, AutocannonResult } from 'autocannon';
import { syncAccount } from '../server/accounts/account-sync.ts';
import { startChild, type ChildServer } from './children.ts';
import { CpuSampler, type CpuFigures } from './cpu-usage.ts';
import { run, type LoadOptions, type Scenario } from './load.ts';
import { machineInfo } from './machine.ts';
import { deleteCreated, log, prepare, scenarios, startService, type BenchContext } from './setup.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'mixed-load.json');

/**
 * One connection's cycle: 7 reads, 2 writes, 1 search. Show, list, create and search are the
 * requests of the API bench's scenarios (setup.ts); the amount update is this bench's own.
 */
function mixedTraffic(context: BenchContext): Scenario {
  const ids = context.showIds;
  return {
    name: 'mixed',
    description: 'per connection: 5 show, 2 list, 1 create, 1 amount update, 1 search',
    requests() {
      // Fresh request lists: each keeps its own counters (the show rotation, the create dates).
      const [list, search, show, create] = ['list', 'filtered list', 'show', 'create'].map(
        (name) =>
          scenarios(context)
            .find((scenario) => scenario.name === name)!
            .requests()[0]!,
      ) as [AutocannonRequest, AutocannonRequest, AutocannonRequest, AutocannonRequest];
      let updated = 0;
      // Updates change amounts, so each queues its account's sync like a create does.
      const update: AutocannonRequest = {
        method: 'PATCH',
        setupRequest: (request) => {
          const n = updated++;
          const body = JSON.stringify({ transaction: { amount: (1000 + (n % 500)) / 100 } });
          return { ...request, path: `/api/v1/transactions/${ids[(n * 7) % ids.length]}`, body };
        },
      };
      return [show, list, show, create, show, search, show, update, list, show];
    },
  };
}

interface LayoutFigures {
  api_processes: number;
  requests_per_s: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  total_requests: number;
  status_codes: Record<string, number>;
  server_errors: number;
  errors: number;
  timeouts: number;
  /** CPU seconds of the measured run per process group (API processes, worker, PostgreSQL, load generator, others). */
  cpu_s: CpuFigures;
  jobs_drained_ms: number;
  failed_jobs: number;
  balances_off: number;
}

/** Sums the runs of the processes; p50/p99 are the worst of them (autocannon reports percentiles, not histograms). */
function combine(results: AutocannonResult[]) {
  const codes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) codes[code] = (codes[code] ?? 0) + stats.count; // prettier-ignore
  }
  return {
    requests_per_s: Math.round(results.reduce((sum, result) => sum + result.requests.mean, 0)),
    latency_p50_ms: Math.max(...results.map((result) => result.latency.p50)),
    latency_p99_ms: Math.max(...results.map((result) => result.latency.p99)),
    total_requests: results.reduce((sum, result) => sum + result.requests.total, 0),
    status_codes: codes,
    server_errors: Object.entries(codes).reduce((sum, [code, count]) => sum + (code.startsWith('5') ? count : 0), 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    timeouts: results.reduce((sum, result) => sum + result.timeouts, 0),
  };
}

/** Waits until no job is due, running or waiting for a retry; the failed ones are counted. */
async function drainQueue(context: BenchContext): Promise<{ ms: number; failed: number }> {
  const started = performance.now();
  for (;;) {
    const { rows } = await context.pool.query<{ pending: number; failed: number }>(
      `select count(*) filter (where attempts < max_attempts)::int as pending,
              count(*) filter (where attempts >= max_attempts)::int as failed
       from graphile_worker.jobs`,
    );
    const { pending, failed } = rows[0]!;
    if (pending === 0) return { ms: Math.round(performance.now() - started), failed };
    if (performance.now() - started > 120_000) throw new Error(`${pending} jobs still pending after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Syncs every account in one transaction and counts those whose stored balance it changed. Kept
 * (`commit`) before the runs, so that balances the seed never synced do not count; rolled back
 * after each run, where any change is a sync the queue lost.
 */
async function syncAllAccounts(context: BenchContext, commit: boolean): Promise<number> {
  const client = await context.pool.connect();
  try {
    await client.query('begin');
    const read = async () =>
      new Map(
        (await client.query<{ id: string; balance: string }>('select id, balance::text from accounts')).rows.map(
          (row) => [row.id, row.balance],
        ),
      );
    const stored = await read();
    for (const id of stored.keys()) await syncAccount(client, id);
    const computed = await read();
    await client.query(commit ? 'commit' : 'rollback');
    return [...stored].filter(([id, balance]) => computed.get(id) !== balance).length;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

async function measureLayout(context: BenchContext, apiProcesses: number): Promise<LayoutFigures> {
  const worker = await startChild('worker', './worker-child.ts', { DATABASE_URL: context.database.url });
  const services: ChildServer[] = [];
  try {
    for (let i = 0; i < apiProcesses; i++) services.push(await startService(context));
    const scenario = mixedTraffic(context);
    const options = (connections: number): LoadOptions => ({
      connections,
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      headers: { 'X-Api-Key': context.seed.key, 'Content-Type': 'application/json' },
    });
    const share = (index: number) =>
      Math.floor(CONNECTIONS / apiProcesses) + (index < CONNECTIONS % apiProcesses ? 1 : 0);
    log(`${apiProcesses} API process(es) + 1 worker: ${WARMUP} s warm-up, ${DURATION} s measured, ${CONNECTIONS} connections`); // prettier-ignore
    await Promise.all(services.map((service, i) => run(service.baseUrl, scenario, options(share(i)), WARMUP)));
    const cpu = new CpuSampler(
      {
        api: () => services.map((service) => service.pid),
        worker: () => [worker.pid],
        load_generator: () => [process.pid],
      },
      context.postmasterPid,
    ).start();
    const results = await Promise.all(
      services.map((service, i) => run(service.baseUrl, scenario, options(share(i)), DURATION)),
    );
    const cpuSeconds = Object.fromEntries(
      Object.entries(cpu()).map(([group, seconds]) => [group, seconds === null ? null : Math.round(seconds * 10) / 10]),
    );
    for (const service of services) await service.stop();
    services.length = 0;
    const drained = await drainQueue(context);
    const figures = {
      api_processes: apiProcesses,
      ...combine(results),
      cpu_s: cpuSeconds,
      jobs_drained_ms: drained.ms,
      failed_jobs: drained.failed,
      balances_off: await syncAllAccounts(context, false),
    };
    log(JSON.stringify(figures));
    return figures;
  } finally {
    for (const service of services) await service.stop();
    await worker.stop();
    const removed = await deleteCreated(context);
    log(`removed ${removed} rows written by the run`);
  }
}

const context = await prepare();
try {
  log(`${await syncAllAccounts(context, true)} account balances brought up to date before the runs`);
  const layouts: LayoutFigures[] = [];
  for (const apiProcesses of [1, 2]) layouts.push(await measureLayout(context, apiProcesses));
  const [one, two] = layouts as [LayoutFigures, LayoutFigures];
  const targets = {
    no_server_errors: { target: 'no 5xx', value: one.server_errors + two.server_errors, met: one.server_errors + two.server_errors === 0 }, // prettier-ignore
    jobs: { target: 'every queued job done, none failed', value: one.failed_jobs + two.failed_jobs, met: one.failed_jobs + two.failed_jobs === 0 }, // prettier-ignore
    balances: { target: 'every balance as a sync computes it', value: one.balances_off + two.balances_off, met: one.balances_off + two.balances_off === 0 }, // prettier-ignore
    scale_out: { target: 'two API processes serve more than one', value: `${one.requests_per_s} -> ${two.requests_per_s} req/s`, met: two.requests_per_s > one.requests_per_s }, // prettier-ignore
  };
  const report = {
    machine: { ...machineInfo(), cpus: os.cpus().length },
    settings: { connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP, transactions: context.seed.rows },
    mix: mixedTraffic(context).description,
    layouts,
    targets,
  };
  await writeFile(RESULTS, JSON.stringify(report, null, 2) + '\n');
  console.log('\n| API processes (+1 worker) | req/s | p50 / p99 ms | status codes | CPU s: API / worker / PostgreSQL / load / others | jobs drained after | failed jobs | balances off |'); // prettier-ignore
  console.log('|---:|---:|---:|---|---|---:|---:|---:|');
  for (const layout of layouts) {
    const cpu = ['api', 'worker', 'postgres', 'load_generator', 'others'].map((group) => layout.cpu_s[group] ?? '?').join(' / '); // prettier-ignore
    console.log(
      `| ${layout.api_processes} | ${layout.requests_per_s} | ${layout.latency_p50_ms} / ${layout.latency_p99_ms} | ${JSON.stringify(layout.status_codes)} | ${cpu} | ${layout.jobs_drained_ms} ms | ${layout.failed_jobs} | ${layout.balances_off} |`, // prettier-ignore
    );
  }
  console.log('\n| target | value | met |\n|---|---|---|');
  for (const target of Object.values(targets)) console.log(`| ${target.target} | ${target.value} | ${target.met ? 'met' : 'missed'} |`); // prettier-ignore
  console.log(`\nWritten to ${path.relative(process.cwd(), RESULTS)}`);
  if (!targets.no_server_errors.met || !targets.jobs.met || !targets.balances.met) process.exitCode = 1;
} finally {
  await context.close();
}
