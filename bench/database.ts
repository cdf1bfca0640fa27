import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { databaseUrl, ensureDatabase, startEmbeddedPostgres } from '../server/db/embedded-postgres.ts';

import { freePort } from '../test/support/free-port.ts';

/** What the benchmarks' own embedded server loads: statistics of every statement, planning included. */
const STATEMENT_STATISTICS = ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_planning=on'];

export interface BenchDatabase {
  /** The benchmark's own database. */
  url: string;
  /** Where it runs: 'embedded' or the BENCH_DATABASE_URL host. */
  server: string;
  /** Drops the database, stops the embedded server and removes its files. */
  close(): Promise<void>;
}

/**
 * A database of the benchmark's own: on the server behind BENCH_DATABASE_URL (a connection string
 * to its maintenance database) when set, else on a throw-away embedded PostgreSQL in os.tmpdir().
 */
export async function createBenchDatabase(logger: Logger): Promise<BenchDatabase> {
  let adminUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => undefined as void;
  let server = 'BENCH_DATABASE_URL';
  if (!adminUrl) {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'finance-bench-pg-'));
    const embedded = await startEmbeddedPostgres(directory, await freePort(), logger, STATEMENT_STATISTICS);
    adminUrl = embedded.adminUrl;
    server = 'embedded';
    stopServer = async () => {
      await embedded.stop();
      await rm(directory, { recursive: true, force: true });
    };
  }
  const name = `finance_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  try {
    await ensureDatabase(adminUrl, name);
  } catch (error) {
    await stopServer();
    throw error;
  }
  const admin = adminUrl;
  return {
    url: databaseUrl(adminUrl, name),
    server,
    async close() {
      try {
        const client = new pg.Client({ connectionString: admin });
        await client.connect();
        await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
        await client.end();
      } finally {
        await stopServer();
      }
    },
  };
}

/** Waits until the worker has no job left to run (the crontab's are not counted: they wait for their hour). */
export async function backgroundJobsDone(pool: pg.Pool): Promise<void> {
  for (;;) {
    const [row] = (
      await pool.query<{ n: number }>(
        `select count(*)::int as n from graphile_worker.jobs
         where attempts < max_attempts and task_identifier not in ('import_expire', 'import_revive', 'idempotency_expire')`,
      )
    ).rows;
    if (row!.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
