import path from 'node:path';

/** Every setting of the service, read once from the environment. */
export interface Config {
  /** HTTP port (PORT, default 3000). */
  port: number;
  /** Interface to bind (HOST, default 0.0.0.0). */
  host: string;
  /** External PostgreSQL (DATABASE_URL). Unset: an embedded PostgreSQL is started. */
  databaseUrl: string | undefined;
  /** Where the embedded PostgreSQL keeps its files (DATA_DIR, default .data; cluster in DATA_DIR/postgres). */
  dataDir: string;
  /** Port of the embedded PostgreSQL (EMBEDDED_PG_PORT, default 54329). */
  embeddedPgPort: number;
  /** Connections in the ORM pool (DB_POOL_SIZE, default 10). */
  dbPoolSize: number;
  /** Largest JSON body accepted, in bytes (JSON_BODY_LIMIT, default 16 MiB; must exceed the 10 MiB CSV limit). */
  jsonBodyLimit: number;
  /** pino level (LOG_LEVEL, default info). */
  logLevel: string;
  /** Create the demo household on start when the database has no family (DEMO_DATA, default true). */
  demoData: boolean;
  /** Requests per window per client address on /api (RATE_LIMIT_PER_ADDRESS, default 20000; 0 = off). */
  rateLimitPerAddress: number;
  /** Requests per window per credential (RATE_LIMIT_PER_CREDENTIAL, default 10000; 0 = off). */
  rateLimitPerCredential: number;
  /** Length of the rate-limit window in seconds (RATE_LIMIT_WINDOW_SECONDS, default 3600). */
  rateLimitWindowSeconds: number;
  /** Take the client address from X-Forwarded-For (TRUST_PROXY, default false): only behind a proxy you run. */
  trustProxy: boolean;
  /** Run the background jobs inside `npm start` (WORKER_ENABLED, default true); `npm run worker` runs them alone. */
  workerEnabled: boolean;
  /** Jobs run at once (WORKER_CONCURRENCY, default 4); the worker's pool holds this many connections plus 2. */
  workerConcurrency: number;
  /** How often an idle worker looks for due jobs, besides being notified (WORKER_POLL_INTERVAL_MS, default 2000). */
  workerPollIntervalMs: number;
}

/** Largest CSV content an import accepts (finance-api.md: 10 MiB); the JSON limit must stay above it. */
export const CSV_CONTENT_LIMIT = 10 * 1024 * 1024;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** Parses and checks the environment; throws with the variable's name on a bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const jsonBodyLimit = integer(env, 'JSON_BODY_LIMIT', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  if (jsonBodyLimit <= CSV_CONTENT_LIMIT) {
    throw new Error(`JSON_BODY_LIMIT must be above the CSV limit of ${CSV_CONTENT_LIMIT} bytes`);
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    embeddedPgPort: integer(env, 'EMBEDDED_PG_PORT', 54329, 1, 65535),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 1000),
    jsonBodyLimit,
    logLevel: env.LOG_LEVEL || 'info',
    demoData: boolean(env, 'DEMO_DATA', true),
    rateLimitPerAddress: integer(env, 'RATE_LIMIT_PER_ADDRESS', 20_000, 0, 1_000_000_000),
    rateLimitPerCredential: integer(env, 'RATE_LIMIT_PER_CREDENTIAL', 10_000, 0, 1_000_000_000),
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 3600, 1, 31 * 86_400),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    workerEnabled: boolean(env, 'WORKER_ENABLED', true),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 4, 1, 100),
    workerPollIntervalMs: integer(env, 'WORKER_POLL_INTERVAL_MS', 2000, 100, 3_600_000),
  };
}
