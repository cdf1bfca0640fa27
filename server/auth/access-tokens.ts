import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { digestSecret, newSecretToken } from './secret-token.ts';

/** Lifetime of an access token: 30 days (docs/api-decisions.md#authentication). */
export const ACCESS_TOKEN_SECONDS = 2_592_000; // 30 days, a literal so the response type carries it
/** Lifetime of a refresh token: an app unused for 90 days signs in again. */
export const REFRESH_TOKEN_SECONDS = 90 * 86_400;

/** The installation that receives tokens, as the client describes it. */
export interface Device {
  device_id: string;
  device_name: string;
  device_type: 'ios' | 'android' | 'web';
  os_version?: string | undefined;
  app_version?: string | undefined;
}

/** The token part of every token response. */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: typeof ACCESS_TOKEN_SECONDS;
  created_at: number;
}

/** The device of a request body or query, when its three identifying members are present and not blank. */
export function readDevice(input: unknown): Device | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const value = input as Record<string, unknown>;
  const present = (key: string) => typeof value[key] === 'string' && (value[key] as string).trim() !== '';
  if (!present('device_id') || !present('device_name') || !present('device_type')) return undefined;
  if (!['ios', 'android', 'web'].includes(value.device_type as string)) return undefined;
  const optional = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : undefined);
  return {
    device_id: value.device_id as string,
    device_name: value.device_name as string,
    device_type: value.device_type as Device['device_type'],
    os_version: optional('os_version'),
    app_version: optional('app_version'),
  };
}

/** Stores a new access/refresh pair for a device (inside the caller's transaction) and returns it in clear. */
async function insertTokens(
  tx: EntityManager,
  userId: string,
  deviceRowId: string,
  now: number,
): Promise<IssuedTokens> {
  const access = newSecretToken();
  const refresh = newSecretToken();
  await sql(
    tx,
    `insert into oauth_tokens (id, user_id, device_id, access_digest, refresh_digest, scope, expires_at, refresh_expires_at, created_at)
     values (?, ?, ?, ?, ?, 'read_write', ?, ?, ?)`,
    [
      randomUUID(),
      userId,
      deviceRowId,
      digestSecret(access),
      digestSecret(refresh),
      new Date(now + ACCESS_TOKEN_SECONDS * 1000),
      new Date(now + REFRESH_TOKEN_SECONDS * 1000),
      new Date(now),
    ],
  );
  return {
    access_token: access,
    refresh_token: refresh,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    created_at: Math.floor(now / 1000),
  };
}

/**
 * Signs a user in on a device, inside the caller's transaction: one token family per device, so
 * the device's earlier tokens are revoked. The device row is written first and stays locked to
 * the end of the transaction, which makes two sign-ins on one device run one after the other
 * (lock order: device, then its tokens; refresh takes them in the same order).
 */
export async function signInDevice(
  tx: EntityManager,
  userId: string,
  device: Device,
  now: number,
): Promise<IssuedTokens> {
  const [row] = await sql<{ id: string }>(
    tx,
    `insert into devices (id, user_id, device_id, device_name, device_type, os_version, app_version, last_seen_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (user_id, device_id) do update set
       device_name = excluded.device_name, device_type = excluded.device_type, os_version = excluded.os_version,
       app_version = excluded.app_version, last_seen_at = excluded.last_seen_at, updated_at = now()
     returning id`,
    [
      randomUUID(),
      userId,
      device.device_id,
      device.device_name,
      device.device_type,
      device.os_version ?? null,
      device.app_version ?? null,
      new Date(now),
    ],
  );
  await sql(tx, 'update oauth_tokens set revoked_at = ? where device_id = ? and revoked_at is null', [
    new Date(now),
    row!.id,
  ]);
  return insertTokens(tx, userId, row!.id, now);
}

/**
 * Rotates a refresh token: the one presented stops working and a new pair is issued for its
 * device. A token that was already rotated is a copy in someone else's hands (or a race of the
 * app with itself): every token of its device is revoked, and the caller answers 401 either way.
 */
export async function refreshTokens(
  em: EntityManager,
  refreshToken: string,
  now: number,
): Promise<IssuedTokens | undefined> {
  const digest = digestSecret(refreshToken);
  const outcome = await writeUnit(em, async (tx) => {
    const [token] = await sql<{ id: string; device_id: string }>(
      tx,
      'select id, device_id from oauth_tokens where refresh_digest = ?',
      [digest],
    );
    if (!token) return undefined;
    await sql(tx, 'select 1 from devices where id = ? for no key update', [token.device_id]);
    const [claimed] = await sql<{ user_id: string }>(
      tx,
      `update oauth_tokens t set rotated_at = ?, revoked_at = ?
       from users u
       where t.id = ? and u.id = t.user_id and u.active
         and t.rotated_at is null and t.revoked_at is null and t.refresh_expires_at > ?
       returning t.user_id`,
      [new Date(now), new Date(now), token.id, new Date(now)],
    );
    if (claimed) return insertTokens(tx, claimed.user_id, token.device_id, now);
    const [reused] = await sql(tx, 'select 1 from oauth_tokens where id = ? and rotated_at is not null', [token.id]);
    if (reused) await revokeWhere(tx, 'device_id = ?', token.device_id, now);
    return undefined;
  });
  return outcome;
}

async function revokeWhere(em: EntityManager, condition: string, value: string, now: number): Promise<number> {
  const rows = await sql(
    em,
    `update oauth_tokens set revoked_at = ? where ${condition} and revoked_at is null returning id`,
    [new Date(now), value],
  );
  return rows.length;
}

/** Revokes every live token of a user (deactivation, `revoke-tokens`); returns how many there were. */
export function revokeUserTokens(em: EntityManager, userId: string, now: number): Promise<number> {
  return revokeWhere(em, 'user_id = ?', userId, now);
}
