import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '../api-keys/api-key.entity.ts';
import { digestApiKey } from '../api-keys/api-key.secret.ts';
import { SECRET_TOKEN_SHAPE, digestSecret } from '../auth/secret-token.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { sql } from '../db/sql.ts';
import { RateLimited, rateLimitHeaders, Unauthorized } from './errors.ts';
import type { Principal } from './principal.ts';

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

export type AccessGate = (em: EntityManager, request: AccessRequest) => Promise<AccessOutcome>;

interface Counter {
  points: number;
  expire: string; // epoch milliseconds (bigint as text)
}

interface CredentialRow {
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

/**
 * Bumps one fixed-window counter of `rate_limits`: a new window starts once the previous one has
 * expired. Takes `valuesSql` (rows of key, 1, expire) and then the window length twice.
 */
export function counterUpsert(valuesSql: string): string {
  return `insert into rate_limits (key, points, expire) ${valuesSql}
    on conflict (key) do update set
      points = case when rate_limits.expire <= excluded.expire - ? then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= excluded.expire - ? then excluded.expire else rate_limits.expire end
    returning key, points, expire::text as expire`;
}

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

function resetSeconds(counter: Counter, now: number): number {
  return Math.max(1, Math.ceil((Number(counter.expire) - now) / 1000));
}

/**
 * Who is calling and whether they may: in ONE statement per request it counts the request against
 * the client address, looks the API key up, and counts it against the key. Round trips to
 * PostgreSQL are the largest cost of a small request (bench/README.md), hence one statement
 * instead of three. Counters are fixed windows in the unlogged `rate_limits` table, shared by all
 * API processes. A bearer token is tried first when present: a malformed or unknown one is refused
 * even when a valid key is sent too.
 */
export function createAccessGate(config: RateLimitConfig, clock: Clock = systemClock): AccessGate {
  const windowMs = config.rateLimitWindowSeconds * 1000;
  return async (em, request) => {
    const now = clock();
    const lookup = credentialLookup(request);
    const ctes: string[] = [];
    const params: unknown[] = [];
    if (config.rateLimitPerAddress > 0) {
      ctes.push(`address as (${counterUpsert('values (?, 1, ?)')})`);
      params.push(`address:${request.address}`, now + windowMs, windowMs, windowMs);
    }
    if (lookup) {
      ctes.push(`credential as (${lookup.sql})`);
      params.push(lookup.digest);
      if (config.rateLimitPerCredential > 0) {
        ctes.push(`credential_count as (${counterUpsert(`select counter_key, 1, ?::bigint from credential`)})`);
        params.push(now + windowMs, windowMs, windowMs);
      }
    }
    let row: GateRow = { address: null, credential: null, credential_count: null };
    if (ctes.length) {
      const pick = (name: string) =>
        ctes.some((cte) => cte.startsWith(`${name} `)) ? `(select row_to_json(${name}) from ${name})` : 'null';
      [row] = (await sql<GateRow>(
        em,
        `with ${ctes.join(', ')}
        select ${pick('address')} as address, ${pick('credential')} as credential, ${pick('credential_count')} as credential_count`,
        params,
      )) as [GateRow];
    }

    if (row.address && row.address.points > config.rateLimitPerAddress) {
      throw new RateLimited(config.rateLimitPerAddress, row.address.points, resetSeconds(row.address, now));
    }
    const addressHeaders = row.address
      ? rateLimitHeaders(
          config.rateLimitPerAddress,
          config.rateLimitPerAddress - row.address.points,
          resetSeconds(row.address, now),
        )
      : {};
    if (!request.secured) return { headers: addressHeaders };

    const credential = row.credential;
    if (!credential) throw new Unauthorized();
    // Before the revocation check: deactivation revokes tokens, and the person should learn why.
    if (!credential.active) throw new Unauthorized('Account has been deactivated');
    if (credential.revoked_at || (credential.expires_at && Date.parse(credential.expires_at) <= now)) {
      throw new Unauthorized();
    }
    const counted = row.credential_count;
    if (counted && counted.points > config.rateLimitPerCredential) {
      throw new RateLimited(config.rateLimitPerCredential, counted.points, resetSeconds(counted, now));
    }
    return {
      principal: {
        userId: credential.user_id,
        familyId: credential.family_id,
        scope: credential.scope,
        aiEnabled: credential.ai_enabled,
        credential: { kind: lookup!.kind, id: credential.id },
      },
      headers: counted
        ? rateLimitHeaders(
            config.rateLimitPerCredential,
            config.rateLimitPerCredential - counted.points,
            resetSeconds(counted, now),
          )
        : addressHeaders,
    };
  };
}

/** Deletes counters whose window ended long ago, so the table holds only live clients. */
export async function pruneRateLimits(em: EntityManager): Promise<number> {
  const rows = await sql<{ key: string }>(em, 'delete from rate_limits where expire < ? returning key', [Date.now()]);
  return rows.length;
}
