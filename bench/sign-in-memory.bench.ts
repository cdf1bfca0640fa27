/**
 * `tsx bench/sign-in-memory.bench.ts`: what a burst of correct sign-ins does to the service's
 * memory. The service runs in a process of its own (bench/service-server.ts) on the benchmark's
 * database; 80 correct logins of one user are sent at once over HTTP, and the service's RSS is
 * read from /proc before the burst and 2 s after it, with its peak (VmHWM) in between. Three runs, each in a
 * fresh service process: no bound on password hashes (as before issue 27), the default bound with
 * a wait long enough for every login, and every setting at its default. Writes
 * bench/results/sign-in-memory.json and prints a Markdown table. See bench/README.md.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../server/config.ts';
import { openOrm } from '../server/db/orm.ts';
import { PASSWORD_COST } from '../server/users/password.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { startChild } from './children.ts';
import { createBenchDatabase } from './database.ts';
import { machineInfo } from './machine.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_SIGN_IN_MEMORY_RESULTS ?? path.join(ROOT, 'bench', 'results', 'sign-in-memory.json');
const LOGINS = Number(process.env.BENCH_SIGN_IN_LOGINS ?? 80);
const EMAIL = 'bench@example.test';
const PASSWORD = 'a long bench password';

const NO_SIGN_IN_LIMITS = {
  LOGIN_ATTEMPTS_PER_ADDRESS: '0',
  LOGIN_FAILURES_PER_ADDRESS: '0',
  LOGIN_FAILURES_PER_EMAIL_AND_ADDRESS: '0',
  LOGIN_FAILURES_PER_EMAIL: '0',
};
const RUNS: { name: string; env: Record<string, string> }[] = [
  {
    name: 'no bound on hashes (as before)',
    env: { ...NO_SIGN_IN_LIMITS, PASSWORD_HASH_CONCURRENCY: '1024', PASSWORD_HASH_WAIT_MS: '60000' },
  },
  { name: 'default bound, long wait', env: { ...NO_SIGN_IN_LIMITS, PASSWORD_HASH_WAIT_MS: '60000' } },
  { name: 'all defaults', env: {} },
];

const log = (message: string) => process.stdout.write(`[bench-sign-in-memory] ${message}\n`);
const mb = (kb: number) => Math.round(kb / 1024);

/** The process's resident memory now and its peak so far (kB), as the kernel keeps them: no sampling. */
async function memoryKb(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

async function burst(baseUrl: string, pid: number) {
  const before = await memoryKb(pid);
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: LOGINS }, async (_, i) => {
      const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: EMAIL,
          password: PASSWORD,
          device: { device_id: `bench-${i}`, device_name: 'Bench', device_type: 'web' },
        }),
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const seconds = Math.round(performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const after = await memoryKb(pid);
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return {
    rssBeforeMb: mb(before.rss),
    peakBeforeMb: mb(before.peak),
    rssPeakMb: mb(after.peak),
    rssAfterMb: mb(after.rss),
    seconds,
    statuses: counts,
  };
}

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const orm = await openOrm(database.url, 2);
  try {
    await createUserWithFamily(orm.em.fork(), { email: EMAIL, password: PASSWORD, familyName: 'Bench' });
    const rows = [];
    for (const run of RUNS) {
      const service = await startChild(run.name, './service-server.ts', {
        DATABASE_URL: database.url,
        DB_POOL_SIZE: '10',
        ...run.env,
      });
      try {
        const settings = loadConfig(run.env);
        const result = await burst(service.baseUrl, service.pid);
        rows.push({ run: run.name, hashesAtOnce: Math.min(settings.passwordHashConcurrency, 1024), ...result });
        log(`${run.name}: ${JSON.stringify(result)}`);
      } finally {
        await service.stop();
      }
    }
    const result = {
      machine: machineInfo(),
      database: database.server,
      passwordCost: PASSWORD_COST,
      logins: LOGINS,
      rows,
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    const statuses = (counts: Record<number, number>) =>
      Object.entries(counts)
        .map(([status, count]) => `${count}× ${status}`)
        .join(', ');
    process.stdout.write(
      `\n| ${LOGINS} correct logins at once | hashes at once | RSS before MB (peak so far) | peak MB | 2 s after MB | answers | s |\n|---|---:|---:|---:|---:|---|---:|\n${rows
        .map(
          (row) =>
            `| ${row.run} | ${row.hashesAtOnce} | ${row.rssBeforeMb} (${row.peakBeforeMb}) | ${row.rssPeakMb} | ${row.rssAfterMb} | ${statuses(row.statuses)} | ${row.seconds} |`,
        )
        .join('\n')}\n\n`,
    );
  } finally {
    await orm.close();
    await database.close();
  }
}

await main();
