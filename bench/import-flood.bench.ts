/**
 * `npm run bench:import-flood`: what one family's import flood costs another family's reads. A
 * household with three years of history (the reader) lists its accounts and its transactions,
 * READ_RATE (40) requests a second, first idle, then while another family POSTs ten large
 * TransactionImports at once (IMPORTS, default 10, of ROWS rows, default 200,000, with
 * `publish: "true"`) and the worker reads and writes them. The service (DB_POOL_SIZE 10) and the
 * worker (WORKER_CONCURRENCY 4, import settings at their defaults) run in processes of their own,
 * on a database of its own. The flood is measured for at most FLOOD_SECONDS (default 120): ten
 * imports of 200,000 rows take longer than that in turn, which is the point. Once an import has been
 * written for 2 s, the flooding family also writes a transaction into the account it imports into:
 * that write waits at most DB_LOCK_TIMEOUT_MS (5 s) for the import's lock, then is answered 503.
 * Writes bench/results/import-flood.json and prints a Markdown table. See bench/README.md.
 */
import { randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { issueApiKey } from '../server/api-keys/api-key.service.ts';
import { openOrm } from '../server/db/orm.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { BANK_CSV_CONFIGURATION, bankCsv, percentile } from './bank-csv.ts';
import { startChild, type ChildServer } from './children.ts';
import { backgroundJobsDone, createBenchDatabase } from './database.ts';
import { machineInfo } from './machine.ts';
import { seedHousehold } from './seed.ts';
import type { UploadAnswer, UploadOrder } from './upload-child.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_IMPORT_FLOOD_RESULTS ?? path.join(ROOT, 'bench', 'results', 'import-flood.json');
const IMPORTS = Number(process.env.IMPORTS ?? 10);
const ROWS = Number(process.env.ROWS ?? 200_000);
const FLOOD_SECONDS = Number(process.env.FLOOD_SECONDS ?? 120);
/** Transactions the reading household has. */
const HISTORY = 20_000;
/** Requests per endpoint while idle. */
const IDLE_READS = 500;
/** Reads per second, both endpoints together. */
const READ_RATE = Number(process.env.READ_RATE ?? 40);
const READS = { accounts: '/api/v1/accounts', transactions: '/api/v1/transactions?per_page=25' };
type Endpoint = keyof typeof READS;
/** What the worker was doing with the flood's imports. */
type Phase = 'staging' | 'importing' | 'idle';

const log = (message: string) => process.stdout.write(`[bench-import-flood] ${message}\n`);
const round = (value: number) => Math.round(value * 10) / 10;

interface Read {
  endpoint: Endpoint;
  /** When it was sent (performance.now()). */
  at: number;
  ms: number;
  /** The HTTP status, or 0 when the request failed without one (a connection reset). */
  status: number;
}

/** A transaction written into `accountId`: its status and how long it took. */
async function write(baseUrl: string, key: string, accountId: string): Promise<{ status: number; ms: number }> {
  const at = performance.now();
  const response = await fetch(`${baseUrl}/api/v1/transactions`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ transaction: { account_id: accountId, date: '2026-11-01', amount: 1, name: 'By hand' } }),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: round(performance.now() - at) };
}

async function read(baseUrl: string, key: string, endpoint: Endpoint, at: number): Promise<Read> {
  let status = 0;
  try {
    const response = await fetch(`${baseUrl}${READS[endpoint]}`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    status = response.status;
  } catch {
    // Counted among the reads not answered 200.
  }
  return { endpoint, at, ms: performance.now() - at, status };
}

/**
 * The reader's requests at READ_RATE per second, alternating between the endpoints, each sent on
 * its schedule whether the earlier ones were answered or not, its latency counted from when it was
 * due: a stalled service shows as many slow requests, not as one (a loop that waits for each answer
 * would send one request through a 50 s stall and count it once among thousands).
 */
async function reads(baseUrl: string, key: string, stop: () => boolean, max: number): Promise<Read[]> {
  const sent: Promise<Read>[] = [];
  const endpoints = Object.keys(READS) as Endpoint[];
  const start = performance.now();
  while (!stop() && sent.length < max) {
    const at = start + (sent.length * 1000) / READ_RATE;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(read(baseUrl, key, endpoints[sent.length % endpoints.length]!, at));
  }
  return Promise.all(sent);
}

/** Starts bench/upload-child.ts and waits until it can take an order. */
async function startUploader(): Promise<{ post(order: UploadOrder): Promise<UploadAnswer[]>; stop(): void }> {
  const child = fork(fileURLToPath(new URL('./upload-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the uploader exited with code ${code}`)));
  });
  return {
    post: (order) =>
      new Promise((resolve, reject) => {
        child.once('message', (message: { answers?: UploadAnswer[]; error?: string }) =>
          message.answers ? resolve(message.answers) : reject(new Error(message.error)),
        );
        child.send(order);
      }),
    stop: () => child.disconnect(),
  };
}

function summary(samples: Read[], endpoint: Endpoint) {
  const values = samples.filter((sample) => sample.endpoint === endpoint).map((sample) => sample.ms);
  return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), n: values.length };
}

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const orm = await openOrm(database.url, 2);
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'import-flood-'));
  let service: ChildServer | undefined;
  let worker: ChildServer | undefined;
  let uploader: Awaited<ReturnType<typeof startUploader>> | undefined;
  try {
    const reader = await seedHousehold(orm.em.fork(), HISTORY, 5_000);
    const em = orm.em.fork();
    const { user, family } = await createUserWithFamily(em, {
      email: 'flood@household.example',
      password: 'bench-password-long',
      familyName: 'The Flooding Household',
    });
    const { key: flooderKey } = await issueApiKey(em, { user, scope: 'read_write' });
    const accountId = randomUUID();
    await pool.query(
      `insert into accounts (id, family_id, name, account_type, currency) values ($1, $2, 'Girokonto', 'depository', 'EUR')`,
      [accountId, family.id],
    );
    await pool.query('vacuum analyze');
    const csv = bankCsv(ROWS);
    const bodyFile = path.join(scratch, 'body.json');
    await writeFile(
      bodyFile,
      JSON.stringify({ raw_file_content: csv.text, account_id: accountId, ...BANK_CSV_CONFIGURATION, publish: 'true' }),
    );
    log(`${IMPORTS} imports of ${csv.rows} rows (${Buffer.byteLength(csv.text)} bytes each)`);

    worker = await startChild('worker', './worker-child.ts', { DATABASE_URL: database.url });
    // The reader's seed queued account syncs and a transfer suggestion: done before anything is measured.
    await backgroundJobsDone(pool);
    service = await startChild('service', './service-server.ts', { DATABASE_URL: database.url, DB_POOL_SIZE: '10' });
    const baseUrl = service.baseUrl;
    uploader = await startUploader();
    await reads(baseUrl, reader.key, () => false, 40); // warm-up
    const idle = await reads(baseUrl, reader.key, () => false, IDLE_READS * 2);
    const idleLoad = os.loadavg()[0]!;

    let stopped = false;
    const flood = reads(baseUrl, reader.key, () => stopped, Number.POSITIVE_INFINITY);
    const started = performance.now();
    const posts = await uploader.post({
      url: `${baseUrl}/api/v1/imports`,
      key: flooderKey,
      file: bodyFile,
      count: IMPORTS,
    });
    const postsDone = performance.now();
    log(
      `POSTs answered ${posts.map((post) => post.status).join(' ')}, the last after ${round(postsDone - started)} ms`,
    );
    const ids = posts.flatMap((post) => (post.id ? [post.id] : []));
    let progress: { status: string; n: number; imported: number }[] = [];
    // What the worker did when: an import being read (staging) or written (importing), or nothing.
    const phases: { at: number; phase: Phase }[] = [];
    const deadline = started + FLOOD_SECONDS * 1000;
    let writingSince: number | undefined;
    let byHand: Promise<{ status: number; ms: number }> | undefined;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const [running] = (
        await pool.query<{ status: Phase }>(
          `select status from imports where id = any($1::uuid[]) and holds_turn and queued_at is null`,
          [ids],
        )
      ).rows;
      phases.push({ at: performance.now(), phase: running?.status ?? 'idle' });
      writingSince = running?.status === 'staging' ? (writingSince ?? performance.now()) : undefined;
      if (!byHand && writingSince !== undefined && performance.now() - writingSince > 2000) {
        byHand = write(baseUrl, flooderKey, accountId);
      }
      progress = (
        await pool.query<{ status: string; n: number; imported: number }>(
          `select status, count(*)::int as n, sum(imported_count)::int as imported from imports
           where id = any($1::uuid[]) group by status order by status`,
          [ids],
        )
      ).rows;
      if (progress.every((row) => row.status === 'complete' || row.status === 'failed')) break;
    }
    stopped = true;
    const during = await flood;
    const writeBehind = await byHand;
    const floodMs = performance.now() - started;
    const floodLoad = os.loadavg()[0]!;
    log(`after ${round(floodMs / 1000)} s: ${progress.map((row) => `${row.n} ${row.status}`).join(', ')}`);

    const refused = during.filter((sample) => sample.status !== 200);
    const phaseOf = (sample: Read): Phase | 'posts' =>
      sample.at < postsDone ? 'posts' : (phases.find((entry) => entry.at >= sample.at)?.phase ?? 'idle');
    const inPhase = (phase: Phase | 'posts') => {
      const values = during.filter((sample) => phaseOf(sample) === phase).map((sample) => sample.ms);
      return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), n: values.length };
    };
    const byPhase = { posts: inPhase('posts'), staging: inPhase('staging'), importing: inPhase('importing') };
    // What sets the flood's p99 when the burst goes badly: its reads above the target's bound.
    const bound = 2 * Math.max(summary(idle, 'accounts').p99, summary(idle, 'transactions').p99);
    const slowDuringPosts = during.filter((sample) => sample.at < postsDone && sample.ms > bound).length;
    const result = {
      machine: machineInfo(),
      database: database.server,
      loadAverage: { idle: round(idleLoad), flood: round(floodLoad) },
      readerTransactions: HISTORY,
      imports: IMPORTS,
      rowsEach: csv.rows,
      bytesEach: Buffer.byteLength(csv.text),
      posts: {
        statuses: posts.map((post) => post.status),
        lastAnsweredMs: round(postsDone - started),
      },
      flood: {
        seconds: round(floodMs / 1000),
        imports: Object.fromEntries(progress.map((row) => [row.status, row.n])),
        rowsWritten: progress.reduce((sum, row) => sum + (row.imported ?? 0), 0),
      },
      /** The flooding family's own write into the account an import was writing. */
      writeBehindImport: writeBehind ?? null,
      readsNotOk: { count: refused.length, statuses: [...new Set(refused.map((sample) => sample.status))] },
      /** Both endpoints together, by what the flood was doing when the read was due. */
      latencyByPhaseMs: byPhase,
      /** Reads due while the POSTs were sent that took longer than twice the higher idle p99. */
      slowDuringPosts: { boundMs: round(bound), count: slowDuringPosts, of: byPhase.posts.n },
      latencyMs: Object.fromEntries(
        (Object.keys(READS) as Endpoint[]).map((endpoint) => [
          endpoint,
          {
            idle: summary(idle, endpoint),
            flood: summary(during, endpoint),
            duringPosts: summary(
              during.filter((sample) => sample.at < postsDone),
              endpoint,
            ),
            afterPosts: summary(
              during.filter((sample) => sample.at >= postsDone),
              endpoint,
            ),
          },
        ]),
      ),
      target: 'flood p99 within 2x of idle p99',
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    const rows = (Object.keys(READS) as Endpoint[]).flatMap((endpoint) => {
      const latency = result.latencyMs[endpoint]!;
      const factor = round(latency.flood.p99 / latency.idle.p99);
      return [
        `| ${READS[endpoint]} p50 idle / flood, ms | ${latency.idle.p50} / ${latency.flood.p50} | |`,
        `| ${READS[endpoint]} p99 idle / flood, ms | ${latency.idle.p99} / ${latency.flood.p99} (${factor}x) | within 2x: ${factor <= 2 ? 'yes' : 'no'} |`,
      ];
    });
    const phaseRow = (label: string, phase: keyof typeof byPhase) =>
      `| reads p50 / p99 ${label}, ms | ${byPhase[phase].p50} / ${byPhase[phase].p99} (${byPhase[phase].n} reads) | |`;
    process.stdout.write(
      [
        '',
        '| measure | value | target |',
        '|---|---:|---|',
        ...rows,
        phaseRow('while the POSTs were sent', 'posts'),
        `| reads while the POSTs were sent above ${round(bound)} ms (twice the higher idle p99) | ${slowDuringPosts} of ${byPhase.posts.n} | |`,
        // A transaction import writes as it reads: all of it is `staging`, and `importing` is empty.
        phaseRow('while an import was read and written (staging)', 'staging'),
        ...(byPhase.importing.n ? [phaseRow('while an import was written (importing)', 'importing')] : []),
        `| a write into the account an import was writing | ${writeBehind ? `${writeBehind.status} after ${writeBehind.ms} ms` : 'not sent'} | 503 after DB_LOCK_TIMEOUT_MS (5 s) |`,
        `| reads not answered 200 during the flood | ${refused.length} of ${during.length} | 0 |`,
        `| the ${IMPORTS} POSTs all answered after, ms | ${result.posts.lastAnsweredMs} | |`,
        `| imports after ${result.flood.seconds} s | ${progress.map((row) => `${row.n} ${row.status}`).join(', ')} (${result.flood.rowsWritten} rows written) | |`,
        `| load average (1 min) idle / flood | ${result.loadAverage.idle} / ${result.loadAverage.flood} | |`,
        '',
      ].join('\n'),
    );
  } finally {
    uploader?.stop();
    await service?.stop();
    await worker?.stop();
    await pool.end();
    await orm.close();
    await rm(scratch, { recursive: true, force: true });
    await database.close();
  }
}

await main();
