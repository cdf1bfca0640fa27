/**
 * `npm run bench:import`: a 10 MiB TransactionImport (realistic rows: `dd.mm.yyyy` dates, amounts
 * in `1.234,56`, names, categories, tags) from POST to `complete`, against the service in its own
 * process and a worker in this one, for a household with three years of history, on a database of
 * its own. In the same run: the limit (the same rows written into `entries` by one COPY), the
 * service's RSS growth while it imports, and the latency of a transaction list (probed PROBE_RATE
 * times a second, beside the import and beside the COPY alike) against idle.
 * Writes bench/results/import.json and prints a Markdown table. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import pino from 'pino';
import { openOrm } from '../server/db/orm.ts';
import { startWorker } from '../server/jobs/worker.ts';
import { BANK_CSV_CONFIGURATION, bankCsv, percentile } from './bank-csv.ts';
import { startChild } from './children.ts';
import { backgroundJobsDone, createBenchDatabase } from './database.ts';
import { machineInfo } from './machine.ts';
import { seedHousehold } from './seed.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_IMPORT_RESULTS ?? path.join(ROOT, 'bench', 'results', 'import.json');
/** Transactions the household has before the import. */
const HISTORY = 20_000;
const log = (message: string) => process.stdout.write(`[bench-import] ${message}\n`);
const round = (value: number) => Math.round(value * 10) / 10;

function rssMb(pid: number): number {
  return (
    Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    ) / 1024
  );
}

interface Sample {
  /** When the request was sent (performance.now()). */
  at: number;
  ms: number;
}

/** Lists per second while probing: a probe of latency, not a load beside the import (nor beside the COPY). */
const PROBE_RATE = 20;

/** One list every 1/PROBE_RATE s (or as soon as the previous answers, when it is late) until `until`. */
async function listLatencies(baseUrl: string, key: string, until: () => boolean, max = 1000): Promise<Sample[]> {
  const samples: Sample[] = [];
  const first = performance.now();
  while (!until() && samples.length < max) {
    const due = first + (samples.length * 1000) / PROBE_RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const at = performance.now();
    const response = await fetch(`${baseUrl}/api/v1/transactions?per_page=25`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    samples.push({ at, ms: performance.now() - at });
  }
  return samples;
}

function latencySummary(samples: Sample[]) {
  const values = samples.map((sample) => sample.ms);
  return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)), n: values.length };
}

/** The limit: the same rows written into `entries` by one COPY (its indexes and foreign keys included). */
async function copyLimit(url: string, familyId: string, accountId: string, csv: string): Promise<number> {
  const rows = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [date, amount, name] = line.split(';');
      const [d, m, y] = date!.split('.');
      const value = amount!.replace(/\./g, '').replace(',', '.');
      return [
        randomUUID(),
        familyId,
        accountId,
        'Transaction',
        randomUUID(),
        value,
        'EUR',
        `${y}-${m}-${d}`,
        name,
      ].join('\t');
    })
    .join('\n');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query('begin');
    await pipeline(
      Readable.from([`${rows}\n`]),
      client.query(
        copyFrom(
          'copy entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name) from stdin',
        ),
      ),
    );
    await client.query('commit');
    return performance.now() - started;
  } finally {
    await client.end();
  }
}

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const orm = await openOrm(database.url, 2);
  const worker = await startWorker({ connectionString: database.url, concurrency: 2, pollIntervalMs: 100 });
  let service;
  try {
    // A household with three years of history, so the list measured while importing shows a full page.
    const { familyId, key } = await seedHousehold(orm.em.fork(), HISTORY, 5_000);
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const account = async (name: string) => {
      const id = randomUUID();
      await pool.query(
        `insert into accounts (id, family_id, name, account_type, currency) values ($1, $2, $3, 'depository', 'EUR')`,
        [id, familyId, name],
      );
      return id;
    };
    const importAccount = await account('Girokonto');
    const copyAccount = await account('Copy limit');
    // The seed's syncs and suggestions first, so that neither the idle list nor the import shares the machine with them.
    await backgroundJobsDone(pool);
    await pool.query('vacuum analyze');
    const { text, rows } = bankCsv();
    log(`${rows} rows, ${Buffer.byteLength(text)} bytes`);

    service = await startChild('service', './service-server.ts', { DATABASE_URL: database.url, DB_POOL_SIZE: '10' });
    await listLatencies(service.baseUrl, key, () => false, 20); // warm-up
    const idle = await listLatencies(service.baseUrl, key, () => false, 200);
    const rssBefore = rssMb(service.pid);

    let done = false;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(service!.pid))), 100);
    const busy = listLatencies(service.baseUrl, key, () => done, 100_000);
    const started = performance.now();
    const response = await fetch(`${service.baseUrl}/api/v1/imports`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        raw_file_content: text,
        account_id: importAccount,
        ...BANK_CSV_CONFIGURATION,
        publish: 'true',
      }),
    });
    const created = (await response.json()) as { data: { id: string; status: string } };
    const createdMs = performance.now() - started;
    log(`POST answered ${response.status} (${created.data.status}) after ${round(createdMs)} ms`);
    let status = created.data.status;
    let imported = 0;
    // When the job that writes took over from the one that read (staging -> importing).
    let writingFrom = Number.NaN;
    // Read by a job (staging), then written (importing).
    while (status === 'staging' || status === 'importing') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [row] = (
        await pool.query<{ status: string; imported_count: number }>(
          'select status, imported_count from imports where id = $1',
          [created.data.id],
        )
      ).rows;
      status = row!.status;
      imported = row!.imported_count;
      if (status !== 'staging' && Number.isNaN(writingFrom)) writingFrom = performance.now();
    }
    const totalMs = performance.now() - started;
    // Written as it was read (published on create): the whole job was `staging`.
    if (Number.isNaN(writingFrom)) writingFrom = started + totalMs;
    done = true;
    clearInterval(sampler);
    const during = await busy;
    if (status !== 'complete') throw new Error(`the import ended ${status}`);
    log(`complete: ${imported} rows in ${round(totalMs)} ms`);
    // The accounts' syncs and the family's transfer suggestions the import queued run before the
    // COPY, which would otherwise share the machine with them.
    const settled = performance.now();
    await backgroundJobsDone(pool);
    const afterMs = performance.now() - settled;
    log(`syncs and suggestions done ${round(afterMs)} ms after`);

    // The same probe runs beside the COPY as beside the import: both share the machine alike.
    let copying = true;
    const probingCopy = listLatencies(service.baseUrl, key, () => !copying, 100_000);
    const copyMs = await copyLimit(database.url, familyId, copyAccount, text);
    copying = false;
    const duringCopy = await probingCopy;
    await pool.end();

    const serviceRate = rows / (totalMs / 1000);
    const copyRate = rows / (copyMs / 1000);
    const result = {
      machine: machineInfo(),
      database: database.server,
      householdTransactions: HISTORY,
      rows,
      bytes: Buffer.byteLength(text),
      endToEnd: {
        ms: round(totalMs),
        createMs: round(createdMs),
        // Polled every 100 ms: each phase to within that.
        stagingMs: round(writingFrom - started - createdMs),
        writingMs: round(started + totalMs - writingFrom),
        syncsAfterMs: round(afterMs),
        rowsPerSecond: Math.round(serviceRate),
      },
      copyLimit: { ms: round(copyMs), rowsPerSecond: Math.round(copyRate) },
      ofLimit: round((serviceRate / copyRate) * 100),
      serviceRssMb: { before: round(rssBefore), peak: round(rssPeak), growth: round(rssPeak - rssBefore) },
      listLatencyMs: {
        idle: latencySummary(idle),
        duringImport: latencySummary(during),
        duringCopy: latencySummary(duringCopy),
        // The two phases apart: the POST stores the CSV in the service, the jobs read and write it in the worker.
        duringPost: latencySummary(during.filter((sample) => sample.at < started + createdMs)),
        duringJob: latencySummary(during.filter((sample) => sample.at >= started + createdMs)),
      },
      targets: { rowsPerSecond: 30_000, ofLimitPercent: 60, rssGrowthMb: 200, latencyFactor: 2 },
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      [
        '',
        '| measure | value | target |',
        '|---|---:|---:|',
        `| end to end (POST to complete), rows/s | ${result.endToEnd.rowsPerSecond} | >= 30,000 |`,
        `| of which the POST (stores the CSV), ms | ${result.endToEnd.createMs} | |`,
        `| of which staging (reading, and writing as it reads) / importing, ms | ${result.endToEnd.stagingMs} / ${result.endToEnd.writingMs} | |`,
        `| account syncs and transfer suggestions after complete, ms | ${result.endToEnd.syncsAfterMs} | |`,
        `| COPY of the same rows into entries, rows/s | ${result.copyLimit.rowsPerSecond} | |`,
        `| service / COPY | ${result.ofLimit}% | >= 60% (issue 30) |`,
        `| service RSS growth, MB | ${result.serviceRssMb.growth} | <= 200 |`,
        `| list p50 idle / during import, ms | ${result.listLatencyMs.idle.p50} / ${result.listLatencyMs.duringImport.p50} | within 2x |`,
        `| list p95 idle / during import, ms | ${result.listLatencyMs.idle.p95} / ${result.listLatencyMs.duringImport.p95} | |`,
        `| list p50 during the POST / the jobs, ms | ${result.listLatencyMs.duringPost.p50} / ${result.listLatencyMs.duringJob.p50} | |`,
        `| list p50 / p95 during the COPY, ms | ${result.listLatencyMs.duringCopy.p50} / ${result.listLatencyMs.duringCopy.p95} | |`,
        '',
      ].join('\n'),
    );
  } finally {
    await service?.stop();
    await worker.stop();
    await orm.close();
    await database.close();
  }
}

await main();
