import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseAddressRange, type AddressRange } from './core/ip-address.ts';
import { isKnownCurrency } from './core/money/money.ts';

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
  /** Connections in each of the API's pools, the ORM's and the statements' (DB_POOL_SIZE, default 10). */
  dbPoolSize: number;
  /** Longest wait of a request for a free pool connection before it is answered 503 (DB_ACQUIRE_TIMEOUT_MS, default 10000). */
  dbAcquireTimeoutMs: number;
  /**
   * Longest wait of a request's statement for a row or table another transaction holds (an import
   * holds its account's for as long as it writes) before it is answered 503 (DB_LOCK_TIMEOUT_MS,
   * default 5000; 0 = wait as long as it takes).
   */
  dbLockTimeoutMs: number;
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
  /**
   * Which proxies in front of the service may name the client in X-Forwarded-For (TRUST_PROXY,
   * default false: none, the socket's peer is the client; true: TRUST_PROXY_HOPS of them, default
   * 1; or a comma-separated list of proxy addresses and CIDR ranges). See http/client-address.ts.
   */
  trustProxy: ProxyTrust;
  /** Run the background jobs inside `npm start` (WORKER_ENABLED, default true); `npm run worker` runs them alone. */
  workerEnabled: boolean;
  /** Jobs run at once (WORKER_CONCURRENCY, default 4); the worker's pool holds twice this many connections plus 2. */
  workerConcurrency: number;
  /** How often an idle worker looks for due jobs, besides being notified (WORKER_POLL_INTERVAL_MS, default 2000). */
  workerPollIntervalMs: number;
  /**
   * Niceness of the background work (WORKER_NICENESS, 0-19, default 10): the job connections'
   * PostgreSQL backends when the database runs on this host, and `npm run worker`'s own process.
   */
  workerNiceness: number;
  /**
   * Assistant replies written at once (AI_WORKER_CONCURRENCY, default 2), by a runner of their own
   * beside the WORKER_CONCURRENCY one: replies waiting on a model never hold the slots of syncs and imports.
   */
  aiWorkerConcurrency: number;
  /** Sign-in attempts per window per client address, right or wrong (LOGIN_ATTEMPTS_PER_ADDRESS, default 30; 0 = off). */
  loginAttemptsPerAddress: number;
  /** Length of the sign-in attempt window in seconds (LOGIN_ATTEMPT_WINDOW_SECONDS, default 60). */
  loginAttemptWindowSeconds: number;
  /** Failed sign-ins per window per client address (LOGIN_FAILURES_PER_ADDRESS, default 50; 0 = off). */
  loginFailuresPerAddress: number;
  /**
   * Failed sign-ins per window on one email from one client address (LOGIN_FAILURES_PER_EMAIL_AND_ADDRESS,
   * default 10; 0 = off): the lockout a guesser causes holds at their address only.
   */
  loginFailuresPerEmailAndAddress: number;
  /**
   * Failed sign-ins per window on one email from all addresses together (LOGIN_FAILURES_PER_EMAIL,
   * default 100; 0 = off): bounds guessing spread over many addresses, high enough that one stranger
   * does not lock the owner out.
   */
  loginFailuresPerEmail: number;
  /** Length of the failed sign-in window in seconds (LOGIN_FAILURE_WINDOW_SECONDS, default 900). */
  loginFailureWindowSeconds: number;
  /**
   * Password hashes (scrypt: 128 MiB and ~0.3 s of a core each at the default cost) run at once in
   * one process (PASSWORD_HASH_CONCURRENCY, default the number of CPUs).
   */
  passwordHashConcurrency: number;
  /** How long a sign-in waits for a free hash before a 503 (PASSWORD_HASH_WAIT_MS, default 2000). */
  passwordHashWaitMs: number;
  /** Key sealing second-factor secrets (MFA_ENCRYPTION_KEY, 32 bytes as hex or base64); unset: a key file in DATA_DIR. */
  mfaEncryptionKey: string | undefined;
  /** Where the service is reached from outside (PUBLIC_URL, default http://localhost:PORT): the SSO callback lives under it. */
  publicUrl: string;
  /** Where a mobile single-sign-on sign-in sends the browser back to the app (MOBILE_APP_REDIRECT_URL). */
  mobileAppRedirectUrl: string;
  /** OpenID Connect providers for mobile single sign-on (SSO_PROVIDERS, a JSON array; default none). */
  ssoProviders: SsoProviderConfig[];
  /** Currency of a family created through single sign-on (DEFAULT_CURRENCY, default USD). */
  defaultCurrency: string;
  /** The AI assistant's model server; undefined when no provider is configured (AI_BASE_URL / AI_API_KEY). */
  ai: AiProviderConfig | undefined;
  /** Chat messages and retries per user per hour (AI_MESSAGES_PER_HOUR, default 60; 0 = no limit). */
  aiMessagesPerHour: number;
  /** How much work one import may make and how imports share the database (IMPORT_*). */
  imports: ImportSettings;
}

/** Limits and scheduling of CSV imports (docs/imports.md#limits). */
export interface ImportSettings {
  /** Data rows an import may have (IMPORT_MAX_ROWS, default 1,000,000); more is a file error. */
  maxRows: number;
  /** Bytes of cells, values and problems an import may stage (IMPORT_MAX_STAGED_BYTES, default 256 MiB). */
  maxStagedBytes: number;
  /** Longest statement of an import's reading, writing or reverting (IMPORT_STATEMENT_TIMEOUT_MS, default 120000). */
  statementTimeoutMs: number;
  /** Days after which a pending or failed import expires: its rows and CSV are removed (IMPORT_EXPIRY_DAYS, default 7). */
  expiryDays: number;
  /** Import jobs running at once across all workers (IMPORT_CONCURRENCY, default 1); a family's run one at a time. */
  concurrency: number;
}

/** The proxies whose X-Forwarded-For entries are believed. */
export type ProxyTrust =
  | { kind: 'none' }
  /** The nearest `hops` hops (the socket's peer first) are ours, whatever their address. */
  | { kind: 'hops'; hops: number }
  /** Hops whose address lies in one of these ranges are ours. */
  | { kind: 'list'; proxies: readonly AddressRange[] };

/** An OpenAI-compatible chat-completions server: OpenAI itself, Ollama, llama.cpp's server, vLLM... */
export interface AiProviderConfig {
  /** AI_BASE_URL, e.g. http://localhost:11434/v1; undefined: OpenAI's own. */
  baseUrl: string | undefined;
  /** AI_API_KEY; a local server usually needs none. */
  apiKey: string | undefined;
  /** AI_MODEL: the model of replies that do not name one (default gpt-4.1-mini). */
  model: string;
  /** AI_TIMEOUT_SECONDS: longest wait for the provider's next sign of life (default 60). */
  timeoutSeconds: number;
  /** AI_MAX_RETRIES: retries of a request the provider refused for a passing reason (default 2). */
  maxRetries: number;
  /**
   * AI_RETRY_AFTER_MAX_SECONDS: the longest Retry-After waited before a retry (default 30); a
   * provider asking for more fails the reply at once, telling the user its time.
   */
  retryAfterMaxSeconds: number;
  /** AI_REPLY_TIMEOUT_SECONDS: the most one reply may take in all, retries and tool rounds included (default 300). */
  replyTimeoutSeconds: number;
  /** AI_CONTEXT_TOKENS: the conversation sent along is cut, oldest first, to about this many tokens (default 12,000). */
  contextTokens: number;
}

/** One OpenID Connect provider of SSO_PROVIDERS. */
export interface SsoProviderConfig {
  /** The name in `/auth/mobile/{name}`: lower-case letters, digits, `-` and `_`. */
  name: string;
  /** Shown to people, for example "Google". */
  displayName: string;
  /** Issuer URL; its `/.well-known/openid-configuration` is read at the first sign-in. */
  issuer: string;
  clientId: string;
  /** Omitted for a public client (PKCE alone). */
  clientSecret: string | undefined;
  /** Whether a sign-in whose identity is not linked may create a new user (default false). */
  allowAccountCreation: boolean;
}

/** Assistant replies written at once when AI_WORKER_CONCURRENCY is not set. */
export const DEFAULT_AI_WORKER_CONCURRENCY = 2;

/** Largest CSV content an import accepts (10 MiB: docs/api-decisions.md#limits); the JSON limit must stay above it. */
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

function url(name: string, raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${raw}"`);
  }
}

/** TRUST_PROXY: false, true (with TRUST_PROXY_HOPS) or a comma-separated list of addresses and CIDR ranges. */
function proxyTrust(env: NodeJS.ProcessEnv): ProxyTrust {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  const hopsGiven = env.TRUST_PROXY_HOPS !== undefined && env.TRUST_PROXY_HOPS !== '';
  if (/^(1|true|yes|on)$/i.test(raw)) return { kind: 'hops', hops: integer(env, 'TRUST_PROXY_HOPS', 1, 1, 20) };
  // A hop count that would be ignored is a mistake worth stopping for.
  if (hopsGiven) throw new Error('TRUST_PROXY_HOPS applies only with TRUST_PROXY=true');
  if (raw === '' || /^(0|false|no|off)$/i.test(raw)) return { kind: 'none' };
  const proxies = raw.split(',').map((entry) => {
    const range = parseAddressRange(entry);
    if (!range) {
      throw new Error(
        `TRUST_PROXY must be true, false or a comma-separated list of proxy addresses and CIDR ranges, got "${entry.trim()}"`,
      );
    }
    return range;
  });
  return { kind: 'list', proxies };
}

/** SSO_PROVIDERS: `[{"name", "issuer", "client_id", "client_secret"?, "display_name"?, "allow_account_creation"?}]`. */
function ssoProviders(raw: string | undefined): SsoProviderConfig[] {
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('SSO_PROVIDERS must be a JSON array of providers');
  }
  if (!Array.isArray(parsed)) throw new Error('SSO_PROVIDERS must be a JSON array of providers');
  const names = new Set<string>();
  return parsed.map((entry: Record<string, unknown>, index) => {
    const where = `SSO_PROVIDERS[${index}]`;
    const text = (key: string, required: boolean): string | undefined => {
      const value = entry?.[key];
      if (value === undefined && !required) return undefined;
      if (typeof value !== 'string' || value.trim() === '')
        throw new Error(`${where}.${key} must be a non-empty string`);
      return value;
    };
    const name = text('name', true)!;
    if (!/^[a-z0-9_-]{1,64}$/.test(name)) throw new Error(`${where}.name must be 1-64 of a-z, 0-9, "-" and "_"`);
    if (names.has(name)) throw new Error(`${where}.name "${name}" is configured twice`);
    names.add(name);
    const issuer = text('issuer', true)!;
    url(`${where}.issuer`, issuer);
    const allow = entry.allow_account_creation ?? false;
    if (typeof allow !== 'boolean') throw new Error(`${where}.allow_account_creation must be true or false`);
    return {
      name,
      displayName: text('display_name', false) ?? name,
      issuer,
      clientId: text('client_id', true)!,
      clientSecret: text('client_secret', false),
      allowAccountCreation: allow,
    };
  });
}

/** The assistant's provider: configured by a base URL (a local server) or an API key (OpenAI). */
function aiProvider(env: NodeJS.ProcessEnv): AiProviderConfig | undefined {
  const baseUrl = env.AI_BASE_URL ? url('AI_BASE_URL', env.AI_BASE_URL).href.replace(/\/$/, '') : undefined;
  const apiKey = env.AI_API_KEY || undefined;
  if (!baseUrl && !apiKey) return undefined;
  const model = env.AI_MODEL || 'gpt-4.1-mini';
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/.test(model)) {
    throw new Error(`AI_MODEL must be a model identifier such as gpt-4.1-mini or llama3.1:8b, got "${model}"`);
  }
  return {
    baseUrl,
    apiKey,
    model,
    timeoutSeconds: integer(env, 'AI_TIMEOUT_SECONDS', 60, 1, 3600),
    maxRetries: integer(env, 'AI_MAX_RETRIES', 2, 0, 10),
    retryAfterMaxSeconds: integer(env, 'AI_RETRY_AFTER_MAX_SECONDS', 30, 0, 3600),
    replyTimeoutSeconds: integer(env, 'AI_REPLY_TIMEOUT_SECONDS', 300, 1, 86_400),
    contextTokens: integer(env, 'AI_CONTEXT_TOKENS', 12_000, 1000, 1_000_000),
  };
}

/** The IMPORT_* settings; `importSettings({})` gives the defaults. */
export function importSettings(env: NodeJS.ProcessEnv = process.env): ImportSettings {
  return {
    maxRows: integer(env, 'IMPORT_MAX_ROWS', 1_000_000, 1, 100_000_000),
    maxStagedBytes: integer(env, 'IMPORT_MAX_STAGED_BYTES', 256 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    statementTimeoutMs: integer(env, 'IMPORT_STATEMENT_TIMEOUT_MS', 120_000, 1, 86_400_000),
    expiryDays: integer(env, 'IMPORT_EXPIRY_DAYS', 7, 1, 3650),
    concurrency: integer(env, 'IMPORT_CONCURRENCY', 1, 1, 100),
  };
}

/** Parses and checks the environment; throws with the variable's name on a bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const jsonBodyLimit = integer(env, 'JSON_BODY_LIMIT', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  if (jsonBodyLimit <= CSV_CONTENT_LIMIT) {
    throw new Error(`JSON_BODY_LIMIT must be above the CSV limit of ${CSV_CONTENT_LIMIT} bytes`);
  }
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicUrl = url('PUBLIC_URL', env.PUBLIC_URL || `http://localhost:${port}`).href.replace(/\/$/, '');
  const mobileAppRedirectUrl = env.MOBILE_APP_REDIRECT_URL || 'financeapp://oauth/callback';
  url('MOBILE_APP_REDIRECT_URL', mobileAppRedirectUrl);
  const defaultCurrency = (env.DEFAULT_CURRENCY || 'USD').toUpperCase();
  if (!isKnownCurrency(defaultCurrency))
    throw new Error(`DEFAULT_CURRENCY must be an ISO 4217 code, got "${defaultCurrency}"`);
  return {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    embeddedPgPort: integer(env, 'EMBEDDED_PG_PORT', 54329, 1, 65535),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 1000),
    dbAcquireTimeoutMs: integer(env, 'DB_ACQUIRE_TIMEOUT_MS', 10_000, 1, 600_000),
    dbLockTimeoutMs: integer(env, 'DB_LOCK_TIMEOUT_MS', 5_000, 0, 600_000),
    jsonBodyLimit,
    logLevel: env.LOG_LEVEL || 'info',
    demoData: boolean(env, 'DEMO_DATA', true),
    rateLimitPerAddress: integer(env, 'RATE_LIMIT_PER_ADDRESS', 20_000, 0, 1_000_000_000),
    rateLimitPerCredential: integer(env, 'RATE_LIMIT_PER_CREDENTIAL', 10_000, 0, 1_000_000_000),
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 3600, 1, 31 * 86_400),
    trustProxy: proxyTrust(env),
    workerEnabled: boolean(env, 'WORKER_ENABLED', true),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 4, 1, 100),
    workerPollIntervalMs: integer(env, 'WORKER_POLL_INTERVAL_MS', 2000, 100, 3_600_000),
    workerNiceness: integer(env, 'WORKER_NICENESS', 10, 0, 19),
    aiWorkerConcurrency: integer(env, 'AI_WORKER_CONCURRENCY', DEFAULT_AI_WORKER_CONCURRENCY, 1, 100),
    loginAttemptsPerAddress: integer(env, 'LOGIN_ATTEMPTS_PER_ADDRESS', 30, 0, 1_000_000_000),
    loginAttemptWindowSeconds: integer(env, 'LOGIN_ATTEMPT_WINDOW_SECONDS', 60, 1, 31 * 86_400),
    loginFailuresPerAddress: integer(env, 'LOGIN_FAILURES_PER_ADDRESS', 50, 0, 1_000_000_000),
    loginFailuresPerEmailAndAddress: integer(env, 'LOGIN_FAILURES_PER_EMAIL_AND_ADDRESS', 10, 0, 1_000_000_000),
    loginFailuresPerEmail: integer(env, 'LOGIN_FAILURES_PER_EMAIL', 100, 0, 1_000_000_000),
    loginFailureWindowSeconds: integer(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 31 * 86_400),
    passwordHashConcurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', availableParallelism(), 1, 1024),
    passwordHashWaitMs: integer(env, 'PASSWORD_HASH_WAIT_MS', 2000, 0, 60_000),
    mfaEncryptionKey: env.MFA_ENCRYPTION_KEY || undefined,
    publicUrl,
    mobileAppRedirectUrl,
    ssoProviders: ssoProviders(env.SSO_PROVIDERS),
    defaultCurrency,
    ai: aiProvider(env),
    aiMessagesPerHour: integer(env, 'AI_MESSAGES_PER_HOUR', 60, 0, 1_000_000),
    imports: importSettings(env),
  };
}
