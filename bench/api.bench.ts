/**
 * `npm run bench:api`: seeds 100,000 transactions into a throw-away PostgreSQL, then measures the
 * service (bench/service-server.ts, the real Koa app) and the limit (bench/limit-server.ts: the same
 * SQL and JSON over bare node:http + pg) with autocannon on four scenarios. Writes
 * bench/results/api.json and prints a Markdown table. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildServer, ServedCounts } from './children.ts';
import { CpuSampler } from './cpu-usage.ts';
import { measure, type LoadOptions, type RunFigures, type RunProbe } from './load.ts';
import { SEARCH_WORD } from './seed.ts';
import { StatementStats, type StatementFigures } from './statement-stats.ts';
import {
  BATCH_SIZE,
  POOL_SIZE,
  deleteCreated,
  log,
  oldSearchScenario,
  prepare,
  scenarios,
  startLimit,
  startService,
  type BenchContext,
} from './setup.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
/** Only these scenarios (comma-separated names), for iterating on one; all by default. */
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
/** Runs per scenario and server; the table gives their medians. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const RESULTS = process.env.BENCH_RESULTS ?? fileURLToPath(new URL('./results/api.json', import.meta.url));

/** Targets (bench/README.md): the first brief's, issue 14's, and issue 30's (ratios, CPU per request). */
const LIST_MIN_RPS = 1000;
const LIST_MAX_P99_MS = 50;
const MIN_RATIO = 0.5;
const RATIO_TARGETS: Record<string, number> = { list: 0.8, 'filtered list': 0.8, show: 0.75, create: 0.7 };
const NODE_CPU_MAX: Record<string, number> = { list: 1.5, 'filtered list': 1.5, show: 1.5 };
const POSTGRES_CPU_MAX = 1.1;
const FILTERED_MIN_RPS = 400;
const FILTERED_MAX_P99_MS = 250;

interface Check {
  status: number;
  body: any;
}

async function call(baseUrl: string, path: string, key: string, body?: unknown): Promise<Check> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Api-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Before any load: each scenario answers 2xx on both servers, and with the same JSON. */
async function preflight(context: BenchContext, service: ChildServer, limit: ChildServer) {
  const checks: Record<string, unknown> = {};
  const key = context.seed.key;
  for (const scenario of scenarios(context)) {
    const [request] = scenario.requests();
    const prepared = request!.setupRequest ? request!.setupRequest({ ...request! }, {}) : request!;
    const body = prepared.body === undefined ? undefined : JSON.parse(String(prepared.body));
    const before = [(await service.counts()).statements, (await limit.counts()).statements];
    const [a, b] = [
      await call(service.baseUrl, prepared.path!, key, body),
      await call(limit.baseUrl, prepared.path!, key, body),
    ];
    const queries = [(await service.counts()).statements - before[0]!, (await limit.counts()).statements - before[1]!];
    if (a.status >= 300 || b.status >= 300) {
      throw new Error(
        `preflight ${scenario.name}: service ${a.status} ${JSON.stringify(a.body).slice(0, 300)}; limit ${b.status} ${JSON.stringify(b.body).slice(0, 300)}`,
      );
    }
    // Created records differ in id and timestamps only.
    const strip = (value: any) =>
      JSON.stringify(value, (k, v) =>
        scenario.name === 'create' && ['id', 'created_at', 'updated_at'].includes(k) && typeof v === 'string' ? '*' : v,
      );
    const same = strip(a.body) === strip(b.body);
    checks[scenario.name] = {
      status: [a.status, b.status],
      same_json: same,
      sql_statements_per_request: queries,
      ...(a.body.meta ? { rows: a.body.data.length, total_count: a.body.meta.total_count } : {}),
    };
    if (!same)
      log(
        `WARNING: ${scenario.name} answers differ:\n  service ${JSON.stringify(a.body).slice(0, 400)}\n  limit   ${JSON.stringify(b.body).slice(0, 400)}`,
      );
  }
  await deleteCreated(context);
  return checks;
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

type Figures = RunFigures & { probed?: Probed };

/** What a run's server sent to PostgreSQL: statements counted in the server, and PostgreSQL's own view. */
interface Probed {
  statements_per_request: number;
  postgres: StatementFigures | null;
}

function probeOf(server: ChildServer, stats: StatementStats | undefined): RunProbe<Probed> {
  let before: ServedCounts = { requests: 0, statements: 0 };
  return {
    async start() {
      before = await server.counts();
      await stats?.reset();
    },
    // Per request the server answered (it also finishes those the load generator gave up on).
    async stop() {
      const after = await server.counts();
      const requests = after.requests - before.requests;
      return {
        statements_per_request: requests ? round((after.statements - before.statements) / requests, 3) : 0,
        postgres: stats ? await stats.read(requests) : null,
      };
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The run of median throughput (its statements and latencies), with each CPU figure the median of all runs. */
function medianRun(runs: Figures[]): Figures {
  const byRate = [...runs].sort((a, b) => a.requests_per_s_mean - b.requests_per_s_mean);
  const middle = byRate[Math.floor((byRate.length - 1) / 2)]!;
  const cpu = (pick: (run: Figures) => Record<string, number | null>) =>
    Object.fromEntries(
      Object.keys(pick(middle)).map((name) => {
        const values = runs.map((run) => pick(run)[name]).filter((v): v is number => typeof v === 'number');
        return [name, values.length ? round(median(values), 3) : null];
      }),
    );
  return {
    ...middle,
    requests_per_s_mean: median(runs.map((run) => run.requests_per_s_mean)),
    latency_p50_ms: median(runs.map((run) => run.latency_p50_ms)),
    latency_p99_ms: median(runs.map((run) => run.latency_p99_ms)),
    non_2xx: runs.reduce((sum, run) => sum + run.non_2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    cpu_s: cpu((run) => run.cpu_s),
    cpu_ms_per_request: cpu((run) => run.cpu_ms_per_request),
  };
}

interface ScenarioResult {
  name: string;
  description: string;
  service: Figures;
  limit: Figures;
  ratio: number;
  runs: { service: Figures[]; limit: Figures[] };
}

function markdownTable(rows: ScenarioResult[]): string {
  const lines = [
    `| scenario | service req/s | service p50 / p99 ms | limit req/s | limit p50 / p99 ms | service / limit | Node CPU ms/req, service / limit | PostgreSQL CPU ms/req, service / limit | statements/req, service / limit | non-2xx (service, limit) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const pair = (a: number | null | undefined, b: number | null | undefined) =>
    `${a ?? '?'} / ${b ?? '?'} (${a && b ? (a / b).toFixed(2) : '?'}x)`;
  for (const row of rows) {
    lines.push(
      `| ${row.name} | ${Math.round(row.service.requests_per_s_mean).toLocaleString('en-US')} | ${row.service.latency_p50_ms} / ${row.service.latency_p99_ms} | ` +
        `${Math.round(row.limit.requests_per_s_mean).toLocaleString('en-US')} | ${row.limit.latency_p50_ms} / ${row.limit.latency_p99_ms} | ` +
        `${Math.round(row.ratio * 100)}% | ${pair(row.service.cpu_ms_per_request.service, row.limit.cpu_ms_per_request.limit)} | ` +
        `${pair(row.service.cpu_ms_per_request.postgres, row.limit.cpu_ms_per_request.postgres)} | ` +
        `${row.service.probed?.statements_per_request ?? '?'} / ${row.limit.probed?.statements_per_request ?? '?'} | ` +
        `${row.service.non_2xx + row.service.errors}, ${row.limit.non_2xx + row.limit.errors} |`,
    );
  }
  return lines.join('\n');
}

/** Per scenario and server, the statements PostgreSQL spent most time on (median run). */
function statementReport(rows: ScenarioResult[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    for (const side of ['service', 'limit'] as const) {
      const postgres = row[side].probed?.postgres;
      if (!postgres) continue;
      lines.push(
        `${row.name} / ${side}: ${postgres.calls_per_request} statements, exec ${postgres.exec_ms_per_request} ms, plan ${postgres.plan_ms_per_request} ms per request`,
      );
      for (const top of postgres.top)
        lines.push(
          `    ${top.calls_per_request} x (exec ${top.exec_ms} + plan ${top.plan_ms} ms, ${top.rows_per_call} rows)${top.nested ? ' nested:' : ''} ${top.statement}`,
        );
    }
  }
  return lines.join('\n');
}

function published({ window_us: _window, ...figures }: Figures) {
  return {
    ...figures,
    requests_per_s_mean: round(figures.requests_per_s_mean),
    latency_mean_ms: round(figures.latency_mean_ms, 2),
  };
}

/** Which code was measured: the commit, and the files of server/ that differ from it (others edit them meanwhile). */
function codeState() {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  return {
    commit: git('rev-parse', '--short', 'HEAD') || 'unknown',
    uncommitted_in_server: git('status', '--porcelain', '--', 'server').split('\n').filter(Boolean),
  };
}

/** Runs during which other processes used more than 10% of the machine's CPU. */
function noiseNote(results: ScenarioResult[], capacity: number) {
  const disturbed = results.flatMap((r) =>
    (['service', 'limit'] as const).flatMap((side) =>
      r.runs[side]
        .filter((run) => (run.cpu_s.others ?? 0) > 0.1 * capacity)
        .map((run) => `${r.name}/${side}: ${run.cpu_s.others} CPU s of ${capacity} used by other processes`),
    ),
  );
  return { cpu_capacity_s_per_run: capacity, disturbed_runs: disturbed };
}

/** Stops the servers and removes the database; set once they exist, also run on Ctrl-C. */
let cleanup: (() => Promise<void>) | undefined;
process.on('SIGINT', () => {
  log('interrupted; cleaning up');
  void (cleanup?.() ?? Promise.resolve()).catch(() => undefined).finally(() => process.exit(130));
});

async function main(): Promise<void> {
  const started = new Date();
  const loadAtStart = os.loadavg();
  const code = codeState();
  const context = await prepare();
  const children: ChildServer[] = [];
  let cleaned: Promise<void> | undefined;
  cleanup = () =>
    (cleaned ??= (async () => {
      for (const child of [...children].reverse()) await child.stop().catch(() => undefined);
      await context.close();
      log('stopped servers and database');
    })());
  try {
    const service = await startService(context);
    children.push(service);
    const limit = await startLimit(context);
    children.push(limit);
    log(`service ${service.baseUrl} (pid ${service.pid}), limit ${limit.baseUrl} (pid ${limit.pid})`);
    const checks = await preflight(context, service, limit);
    log(`preflight: ${JSON.stringify(checks)}`);

    const options: LoadOptions = {
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      headers: { 'X-Api-Key': context.seed.key, 'Content-Type': 'application/json' },
    };
    const cpu = new CpuSampler(
      { load_generator: () => [process.pid], service: () => [service.pid], limit: () => [limit.pid] },
      context.postmasterPid,
    );
    const stats = await StatementStats.open(context.pool);
    if (!stats) log('pg_stat_statements is not loaded on this server: no per-statement figures');
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios(context).filter((s) => !ONLY || ONLY.includes(s.name))) {
      const runs: ScenarioResult['runs'] = { service: [], limit: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which server goes first, so a drift of the machine falls on both.
        const order =
          round % 2
            ? ([
                ['limit', limit],
                ['service', service],
              ] as const)
            : ([
                ['service', service],
                ['limit', limit],
              ] as const);
        for (const [label, server] of order) {
          log(
            `${scenario.name} -> ${label} (round ${round + 1}/${ROUNDS}): ${WARMUP} s warm-up, ${DURATION} s measured, ${CONNECTIONS} connections`,
          );
          const run = await measure(server.baseUrl, scenario, options, cpu, probeOf(server, stats));
          runs[label].push(run);
          log(
            `  ${Math.round(run.requests_per_s_mean)} req/s, p50 ${run.latency_p50_ms} ms, p99 ${run.latency_p99_ms} ms, ` +
              `non-2xx ${run.non_2xx}, errors ${run.errors}; CPU ms/request: ${label} ${run.cpu_ms_per_request[label]}, ` +
              `postgres ${run.cpu_ms_per_request.postgres}, autocannon ${run.cpu_ms_per_request.load_generator}; ` +
              `statements/request ${run.probed?.statements_per_request}; CPU s used by other processes ${run.cpu_s.others}`,
          );
          if (run.non_2xx || run.errors)
            log(`  WARNING: ${run.non_2xx} non-2xx, ${run.errors} errors: ${JSON.stringify(run.status_codes)}`);
          if (scenario.name === 'create') log(`  removed ${await deleteCreated(context)} created transactions`);
        }
      }
      const figures = { service: medianRun(runs.service), limit: medianRun(runs.limit) };
      results.push({
        name: scenario.name,
        description: scenario.description,
        ...figures,
        ratio: round(figures.service.requests_per_s_mean / figures.limit.requests_per_s_mean, 3),
        runs,
      });
    }

    // The second figure of the search: the statement of before issue 14, on the limit server.
    const oldScenario = oldSearchScenario(context);
    let oldSearch: Figures | undefined;
    if (!ONLY || ONLY.includes('filtered list')) {
      log(`${oldScenario.name} -> limit: ${WARMUP} s warm-up, ${DURATION} s measured`);
      oldSearch = await measure(limit.baseUrl, oldScenario, options, cpu);
      log(
        `  ${Math.round(oldSearch.requests_per_s_mean)} req/s, p50 ${oldSearch.latency_p50_ms} ms, p99 ${oldSearch.latency_p99_ms} ms, ` +
          `non-2xx ${oldSearch.non_2xx}; CPU ms/request: postgres ${oldSearch.cpu_ms_per_request.postgres}`,
      );
    }

    const named = (name: string) => results.filter((r) => r.name === name);
    const cpuRatio = (r: ScenarioResult, side: 'node' | 'postgres') => {
      const [service, limitCpu] =
        side === 'node'
          ? [r.service.cpu_ms_per_request.service, r.limit.cpu_ms_per_request.limit]
          : [r.service.cpu_ms_per_request.postgres, r.limit.cpu_ms_per_request.postgres];
      return service && limitCpu ? round(service / limitCpu, 2) : null;
    };
    const targets = [
      ...named('filtered list').flatMap((filtered) => [
        {
          target: `filtered list >= ${FILTERED_MIN_RPS} req/s`,
          value: round(filtered.service.requests_per_s_mean),
          met: filtered.service.requests_per_s_mean >= FILTERED_MIN_RPS,
        },
        {
          target: `filtered list p99 <= ${FILTERED_MAX_P99_MS} ms`,
          value: filtered.service.latency_p99_ms,
          met: filtered.service.latency_p99_ms <= FILTERED_MAX_P99_MS,
        },
      ]),
      ...named('list').flatMap((list) => [
        {
          target: `list >= ${LIST_MIN_RPS} req/s`,
          value: round(list.service.requests_per_s_mean),
          met: list.service.requests_per_s_mean >= LIST_MIN_RPS,
        },
        {
          target: `list p99 <= ${LIST_MAX_P99_MS} ms`,
          value: list.service.latency_p99_ms,
          met: list.service.latency_p99_ms <= LIST_MAX_P99_MS,
        },
      ]),
      ...results.map((r) => ({
        target: `${r.name}: service >= ${(RATIO_TARGETS[r.name] ?? MIN_RATIO) * 100}% of limit req/s`,
        value: r.ratio,
        met: r.ratio >= (RATIO_TARGETS[r.name] ?? MIN_RATIO),
      })),
      ...results
        .filter((r) => NODE_CPU_MAX[r.name] !== undefined)
        .map((r) => ({
          target: `${r.name}: Node CPU per request <= ${NODE_CPU_MAX[r.name]}x the limit's`,
          value: cpuRatio(r, 'node'),
          met: (cpuRatio(r, 'node') ?? Infinity) <= NODE_CPU_MAX[r.name]!,
        })),
      ...results.map((r) => ({
        target: `${r.name}: PostgreSQL CPU per request <= ${POSTGRES_CPU_MAX}x the limit's`,
        value: cpuRatio(r, 'postgres'),
        met: (cpuRatio(r, 'postgres') ?? Infinity) <= POSTGRES_CPU_MAX,
      })),
      ...results.map((r) => ({
        target: `${r.name}: no non-2xx / errors`,
        value: r.service.non_2xx + r.service.errors + r.limit.non_2xx + r.limit.errors,
        met: r.service.non_2xx + r.service.errors + r.limit.non_2xx + r.limit.errors === 0,
      })),
    ];
    const cpus = os.cpus();
    const report = {
      machine: {
        node: process.version,
        platform: `${os.type()} ${os.release()} ${os.arch()}`,
        cpu_count: cpus.length,
        cpu_model: cpus[0]?.model ?? 'unknown',
        memory_gb: round(os.totalmem() / 2 ** 30),
        postgres: `${context.postgresVersion} (${context.database.server})`,
        date: started.toISOString(),
        loadavg_at_start: loadAtStart.map((v) => round(v, 2)),
      },
      code,
      config: {
        connections: CONNECTIONS,
        duration_s: DURATION,
        rounds: ROUNDS,
        warmup_s: WARMUP,
        db_pool_size: POOL_SIZE,
        transactions: context.seed.rows,
        search_word: SEARCH_WORD,
        load_generator:
          'autocannon in the parent process; service and limit each in their own child process; PostgreSQL on the same machine',
        service_rate_limits: {
          per_address: process.env.RATE_LIMIT_PER_ADDRESS ?? '1000000000',
          per_credential: process.env.RATE_LIMIT_PER_CREDENTIAL ?? '1000000000',
          note: 'checked on every request (counters in PostgreSQL) but set high enough never to trip; 0 turns a limit off',
        },
      },
      seeding: {
        rows: context.seed.rows,
        batch_size: BATCH_SIZE,
        insert_seconds: round(context.seed.insertSeconds, 2),
        rows_per_s: Math.round(context.seed.rowsPerSecond),
        seed_total_seconds: round(context.seedTotalSeconds, 2),
        vacuum_analyze_seconds: round(context.vacuumSeconds, 2),
      },
      preflight: checks,
      scenarios: results.map((r) => ({
        name: r.name,
        request: r.description,
        service: published(r.service),
        limit: published(r.limit),
        runs: { service: r.runs.service.map(published), limit: r.runs.limit.map(published) },
        ratio_service_over_limit: r.ratio,
      })),
      old_search_statement: oldSearch && {
        request: oldScenario.description,
        limit: published(oldSearch),
        new_over_old_limit: round(
          named('filtered list')[0]!.limit.requests_per_s_mean / oldSearch.requests_per_s_mean,
          1,
        ),
      },
      targets,
      noise: noiseNote(results, os.cpus().length * DURATION),
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `\n${markdownTable(results)}\n\n${statementReport(results)}\n\nseeding: ${report.seeding.rows_per_s.toLocaleString('en-US')} rows/s ` +
        `(${context.seed.rows} rows in ${report.seeding.insert_seconds} s, batches of ${BATCH_SIZE})\n` +
        (oldSearch
          ? `filtered list with the old search statement (limit server): ${Math.round(oldSearch.requests_per_s_mean)} req/s, ` +
            `p50 / p99 ${oldSearch.latency_p50_ms} / ${oldSearch.latency_p99_ms} ms, ` +
            `PostgreSQL ${oldSearch.cpu_ms_per_request.postgres} ms CPU per request\n`
          : ''),
    );
    if (report.noise.disturbed_runs.length) log(`NOISE: ${report.noise.disturbed_runs.join('; ')}`);
    for (const target of targets)
      process.stdout.write(`${target.met ? 'met   ' : 'MISSED'} ${target.target} (${target.value})\n`);
    log(`results written to ${RESULTS}`);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
