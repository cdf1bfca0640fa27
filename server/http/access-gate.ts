import type { Scope } from '../api-keys/api-key.entity.ts';
import { digestApiKey } from '../api-keys/api-key.secret.ts';
import { SECRET_TOKEN_SHAPE, digestSecret } from '../auth/secret-token.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Config } from '../config.ts';
import { counterUpsert, refuseBeyond, secondsUntilReset } from '../core/rate-limit.ts';
import { sql, type SqlTarget } from '../core/sql.ts';
import { Unauthorized } from '../core/errors.ts';
import { rateLimitHeaders } from './errors.ts';
import type { Principal } from './principal.ts';
import type { CredentialCache } from './credential-cache.ts';
import { RateLimitLedger } from './rate-limit-ledger.ts';

export type RateLimitConfig = Pick<Config, 'rateLimitPerAddress' | 'rateLimitPerCredential' | 'rateLimitWindowSeconds'>;

/** What the gate needs to know about a request. */
export interface AccessRequest {
  /** Client address, counted against the per-address limit. */
  address: string;
  /** Whether the operation is secured (needs a credential). */
  secured: boolean;
  /** The bearer token of `Authorization: Bearer`, when sent. */
  bearer?: string | undefined;
  /** The `X-Api-Key` header, when sent. */
  apiKey?: string | undefined;
}

export interface AccessOutcome {
  /** The caller, for secured operations. */
  principal?: Principal;
  /** X-RateLimit-* of the credential (or, without one, of the address). */
  headers: Record<string, string>;
}

export type AccessGate = (db: SqlTarget, request: AccessRequest) => Promise<AccessOutcome>;

interface Counter {
  points: number;
  expire: string; // epoch milliseconds (bigint as text)
}

export interface CredentialRow {
  id: string;
  /** Whose counter the request bumps: the API key, or the device of an access token (so rotation does not reset it). */
  counter_key: string;
  scope: Scope;
  expires_at: string | null;
  revoked_at: string | null;
  user_id: string;
  family_id: string;
  active: boolean;
  ai_enabled: boolean;
}

interface GateRow {
  address: Counter | null;
  credential: CredentialRow | null;
  credential_count: Counter | null;
}

const KEY_SHAPE = /^[0-9a-f]{64}$/;

const API_KEY_SQL = `
  select k.id, 'credential:api_key:' || k.id as counter_key, k.scope, k.expires_at, k.revoked_at,
    u.id as user_id, u.family_id, u.active, u.ai_enabled
  from api_keys k join users u on u.id = k.user_id
  where k.key_digest = ?`;

const ACCESS_TOKEN_SQL = `
  select t.id, 'credential:device:' || t.device_id as counter_key, t.scope, t.expires_at, t.revoked_at,
    u.id as user_id, u.family_id, u.active, u.ai_enabled
  from oauth_tokens t join users u on u.id = t.user_id
  where t.access_digest = ?`;

/** The credential lookup a request asks for: a bearer token when one is sent (even with a key), else the key. */
function credentialLookup(
  request: AccessRequest,
): { sql: string; digest: string; kind: 'api_key' | 'bearer' } | undefined {
  if (!request.secured) return undefined;
  if (request.bearer !== undefined) {
    return SECRET_TOKEN_SHAPE.test(request.bearer)
      ? { sql: ACCESS_TOKEN_SQL, digest: digestSecret(request.bearer), kind: 'bearer' }
      : undefined;
  }
  return request.apiKey && KEY_SHAPE.test(request.apiKey)
    ? { sql: API_KEY_SQL, digest: digestApiKey(request.apiKey), kind: 'api_key' }
    : undefined;
}

/**
 * Who is calling and whether they may. Round trips to PostgreSQL are the largest cost of a small
 * request (bench/README.md), so a request usually makes none here: its rate-limit points come from
 * batches this process reserved from the shared counters (RateLimitLedger), and its credential from
 * the credentials this process looked up and keeps while it hears of every change
 * (CredentialCache). When a counter needs points or a credential is not known, ONE statement
 * reserves the points of the client address, looks the credential up, and reserves the points of
 * the credential. Counters are fixed windows in the unlogged `rate_limits` table, shared by all API
 * processes. A bearer token is tried first when present: a malformed or unknown one is refused even
 * when a valid key is sent too.
 */
export function createAccessGate(
  config: RateLimitConfig,
  clock: Clock = systemClock,
  /** Credentials kept between requests; without it every request looks its credential up. */
  credentials?: CredentialCache<CredentialRow>,
): AccessGate {
  // Rate-limit points this process holds between requests.
  const ledger = new RateLimitLedger();
  const windowMs = config.rateLimitWindowSeconds * 1000;
  const perAddress = config.rateLimitPerAddress;
  const perCredential = config.rateLimitPerCredential;
  return async (db, request) => {
    const now = clock();
    const lookup = credentialLookup(request);
    const ctes: string[] = [];
    const params: unknown[] = [];
    const addressKey = `address:${request.address}`;
    let address = perAddress > 0 ? ledger.take(addressKey, now) : undefined;
    const addressBatch = perAddress > 0 && !address ? ledger.reserve(addressKey, perAddress, now) : 0;
    if (addressBatch) {
      ctes.push(`address as (${counterUpsert('values (?, ?::int, ?::bigint)')})`);
      params.push(addressKey, addressBatch, now + windowMs, now, now);
    }
    const cacheKey = lookup && `${lookup.kind}:${lookup.digest}`;
    let credential = cacheKey ? credentials?.get(cacheKey, now) : undefined;
    const epoch = credentials?.epoch ?? 0;
    let counted = credential && perCredential > 0 ? ledger.take(credential.counter_key, now) : undefined;
    let credentialBatch = 0;
    if (lookup && !credential) {
      ctes.push(`credential as (${lookup.sql})`);
      params.push(lookup.digest);
      // Its counter is not known before the lookup: one point, as without batching.
      if (perCredential > 0) {
        credentialBatch = 1;
        ctes.push(`credential_count as (${counterUpsert(`select counter_key, 1, ?::bigint from credential`)})`);
        params.push(now + windowMs, now, now);
      }
    } else if (credential && perCredential > 0 && !counted) {
      credentialBatch = ledger.reserve(credential.counter_key, perCredential, now);
      ctes.push(`credential_count as (${counterUpsert('values (?, ?::int, ?::bigint)')})`);
      params.push(credential.counter_key, credentialBatch, now + windowMs, now, now);
    }
    if (ctes.length) {
      const pick = (name: string) =>
        ctes.some((cte) => cte.startsWith(`${name} `)) ? `(select row_to_json(${name}) from ${name})` : 'null';
      let row: GateRow;
      try {
        [row] = (await sql<GateRow>(
          db,
          `with ${ctes.join(', ')}
          select ${pick('address')} as address, ${pick('credential')} as credential, ${pick('credential_count')} as credential_count`,
          params,
        )) as [GateRow];
      } catch (error) {
        if (addressBatch) ledger.abandon(addressKey, addressBatch);
        if (credential && credentialBatch) ledger.abandon(credential.counter_key, credentialBatch);
        throw error;
      }
      const shared = (counter: Counter) => ({ points: counter.points, expire: Number(counter.expire) });
      if (row.address) address = ledger.record(addressKey, addressBatch, shared(row.address), perAddress, now);
      if (row.credential) {
        credential = row.credential;
        credentials?.set(cacheKey!, credential, now, epoch);
      }
      if (row.credential_count) {
        counted = ledger.record(
          credential!.counter_key,
          credentialBatch,
          shared(row.credential_count),
          perCredential,
          now,
        );
      }
    }

    if (address) refuseBeyond(address, perAddress, now);
    const addressHeaders = address
      ? rateLimitHeaders(perAddress, perAddress - address.points, secondsUntilReset(address, now))
      : {};
    if (!request.secured) return { headers: addressHeaders };

    if (!credential) throw new Unauthorized();
    // Before the revocation check: deactivation revokes tokens, and the person should learn why.
    if (!credential.active) throw new Unauthorized('Account has been deactivated');
    if (credential.revoked_at || (credential.expires_at && Date.parse(credential.expires_at) <= now)) {
      throw new Unauthorized();
    }
    if (counted) refuseBeyond(counted, perCredential, now);
    return {
      principal: {
        userId: credential.user_id,
        familyId: credential.family_id,
        scope: credential.scope,
        aiEnabled: credential.ai_enabled,
        credential: { kind: lookup!.kind, id: credential.id },
      },
      headers: counted
        ? rateLimitHeaders(perCredential, perCredential - counted.points, secondsUntilReset(counted, now))
        : addressHeaders,
    };
  };
}
