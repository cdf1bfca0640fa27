import { mkdtemp, rm } from 'node:fs/promises';
import { freePort } from './free-port.ts';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, databaseUrl, startEmbeddedPostgres } from '../../server/db/embedded-postgres.ts';
import { openOrm } from '../../server/db/orm.ts';

/** Name of the migrated database every test file clones. */
export const TEMPLATE_DATABASE = 'finance_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

/**
 * One PostgreSQL for the run: TEST_DATABASE_URL (its maintenance database) when set, else a
 * throw-away embedded cluster. A template database is migrated once; each test file clones it.
 */
export default async function setup(project: TestProject) {
  const logger = pino({ level: 'warn' });
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop = async () => undefined as void;
  if (!adminUrl) {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'finance-test-pg-'));
    const server = await startEmbeddedPostgres(directory, await freePort(), logger);
    adminUrl = server.adminUrl;
    stop = async () => {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    };
  }
  const client = await import('pg');
  const admin = new client.default.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
  await admin.end();
  await ensureDatabase(adminUrl, TEMPLATE_DATABASE);
  const orm = await openOrm(databaseUrl(adminUrl, TEMPLATE_DATABASE), 2);
  await orm.close();
  project.provide('adminDatabaseUrl', adminUrl);
  return stop;
}
