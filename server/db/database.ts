import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { databaseUrl, ensureDatabase, startEmbeddedPostgres } from './embedded-postgres.ts';
import path from 'node:path';

/** The application database the process should use, and how to release its server. */
export interface DatabaseTarget {
  url: string;
  stop(): Promise<void>;
}

/** Name of the application database inside the embedded cluster. */
export const EMBEDDED_DATABASE = 'finance';

/** DATABASE_URL when set; otherwise the embedded cluster (started or attached) and its `finance` database. */
export async function resolveDatabase(config: Config, logger: Logger): Promise<DatabaseTarget> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined };
  const server = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), config.embeddedPgPort, logger);
  await ensureDatabase(server.adminUrl, EMBEDDED_DATABASE);
  return { url: databaseUrl(server.adminUrl, EMBEDDED_DATABASE), stop: server.stop };
}
