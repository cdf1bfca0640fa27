import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';
import { until } from './worker-process.ts';

/** `npm start` (server/main.ts) as a process of its own, with its own embedded PostgreSQL. */
export interface ServiceProcess {
  child: ChildProcess;
  /** e.g. http://localhost:41234 */
  baseUrl: string;
  /** The demo household's read_write key. */
  key: string;
  /** The embedded cluster's directory (postmaster.pid, the superuser password). */
  clusterDir: string;
  /** Its JSON log lines and what it wrote to stderr, so far. */
  logs(): string;
  /** A connection to its database as superuser, once the database accepts one (within 60 s). */
  connect(): Promise<pg.Client>;
  /**
   * Ctrl-C at a terminal: SIGINT to the whole process group (with `npmStart`: npm, tsx, the
   * service). Resolves once every process holding its output has ended.
   */
  interrupt(): Promise<void>;
  /** SIGTERM, wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  /**
   * Start it as a person does, `npm start` (without its prestart: the contract is already built),
   * in a process group of its own as a terminal would; else `node --import tsx server/main.ts`.
   */
  npmStart?: boolean;
}

export async function startServiceProcess(
  env: Record<string, string> = {},
  options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'finance-service-'));
  // PostgreSQL runs as its own user when the tests run as root: it must reach its directory.
  await chmod(dataDir, 0o755);
  const clusterDir = path.join(dataDir, 'postgres');
  const pgPort = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: 'info',
    ...env,
  };
  delete childEnv.DATABASE_URL;
  const child = options.npmStart
    ? spawn('npm', ['start', '--ignore-scripts'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  // 'close' comes once no process holds the output pipes any more: npm may exit before the service.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    if (options.npmStart) process.kill(-child.pid!, name);
    else child.kill(name);
  };
  let logs = '';
  child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      logs += chunk.toString();
      if (/try: curl/.test(output)) resolve(output);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });

  const connect = async (): Promise<pg.Client> => {
    const password = (await readFile(path.join(clusterDir, '.superuser-password'), 'utf8')).trim();
    let connected: pg.Client | undefined;
    await until(
      async () => {
        const client = new pg.Client({
          connectionString: `postgres://postgres:${password}@${encodeURIComponent(clusterDir)}:${pgPort}/finance`,
        });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('select 1');
          connected = client;
          return true;
        } catch {
          await client.end().catch(() => undefined);
          return false;
        }
      },
      60_000,
      'the database to accept connections',
    );
    return connected!;
  };

  return {
    child,
    baseUrl: /running at (http:\/\/localhost:\d+)\/api\/v1/.exec(banner)![1]!,
    key: /read_write API key:\s+([0-9a-f]{64})/.exec(banner)![1]!,
    clusterDir,
    logs: () => logs,
    connect,
    async interrupt() {
      signal('SIGINT');
      await closed;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        signal('SIGTERM');
        await closed;
      }
      // Backends of a killed postmaster may still be writing their last files for a moment.
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}
