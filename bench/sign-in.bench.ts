/**
 * Part of `npm run bench:api`: what a sign-in costs, and whether an unknown email can be told from
 * a known one by the time of the answer. The app runs in this process on its own database; login
 * requests go one at a time over real HTTP with a known email and a wrong password, an unknown
 * email, and the right password, interleaved so that drift of the machine hits all three alike.
 * Writes bench/results/sign-in.json and prints a Markdown table. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { openOrm } from '../server/db/orm.ts';
import { openStatementPool } from '../server/db/statement-pool.ts';
import { createHttpServer } from '../server/http/http-server.ts';
import { PASSWORD_COST } from '../server/users/password.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { createBenchDatabase } from './database.ts';
import { machineInfo } from './machine.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_SIGN_IN_RESULTS ?? path.join(ROOT, 'bench', 'results', 'sign-in.json');
const ROUNDS = Number(process.env.BENCH_SIGN_IN_ROUNDS ?? 30);
const EMAIL = 'bench@example.test';
const PASSWORD = 'a long bench password';

const log = (message: string) => process.stdout.write(`[bench-sign-in] ${message}\n`);
const round = (value: number) => Math.round(value * 10) / 10;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const orm = await openOrm(database.url, 4);
  // Limits off: this measures the work of a sign-in, not the throttle.
  const config = loadConfig({
    LOGIN_ATTEMPTS_PER_ADDRESS: '0',
    LOGIN_FAILURES_PER_ADDRESS: '0',
    LOGIN_FAILURES_PER_EMAIL_AND_ADDRESS: '0',
    LOGIN_FAILURES_PER_EMAIL: '0',
  });
  const statements = openStatementPool(database.url, 4, config.dbAcquireTimeoutMs, pino({ level: 'warn' }));
  const app = await createApp({
    config,
    orm,
    statements,
    logger: pino({ level: 'warn' }),
    sealingKey: randomBytes(32),
  });
  const server = createHttpServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/auth/login`;
  try {
    await createUserWithFamily(orm.em.fork(), { email: EMAIL, password: PASSWORD, familyName: 'Bench' });
    const kinds = {
      'known email, wrong password': { email: EMAIL, password: 'not it', status: 401 },
      'unknown email': { email: 'nobody@example.test', password: 'not it', status: 401 },
      'right password': { email: EMAIL, password: PASSWORD, status: 200 },
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
    for (let i = -3; i < ROUNDS; i++) {
      for (const [kind, request] of Object.entries(kinds)) {
        const started = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            email: request.email,
            password: request.password,
            device: { device_id: 'bench', device_name: 'Bench', device_type: 'web' },
          }),
        });
        await response.arrayBuffer();
        const ms = performance.now() - started;
        if (response.status !== request.status) throw new Error(`${kind}: status ${response.status}`);
        if (i >= 0) samples[kind]!.push(ms); // the first rounds warm up (the decoy hash is made on first use)
      }
    }
    const rows = Object.entries(samples).map(([kind, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { kind, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), n: sorted.length };
    });
    const result = { machine: machineInfo(), database: database.server, passwordCost: PASSWORD_COST, rows };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`scrypt N=${PASSWORD_COST.N}, r=${PASSWORD_COST.r}, p=${PASSWORD_COST.p}; ${ROUNDS} logins of each kind`);
    process.stdout.write(
      `\n| login | p50 ms | p95 ms |\n|---|---:|---:|\n${rows.map((row) => `| ${row.kind} | ${row.p50} | ${row.p95} |`).join('\n')}\n\n`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await statements.end();
    await orm.close();
    await database.close();
  }
}

await main();
