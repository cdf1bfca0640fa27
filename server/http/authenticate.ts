import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '../api-keys/api-key.entity.ts';
import { digestApiKey } from '../api-keys/api-key.secret.ts';
import { sql } from '../db/sql.ts';
import { Unauthorized } from './errors.ts';
import type { Principal } from './principal.ts';

interface CredentialRow {
  id: string;
  scope: Scope;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  user_id: string;
  family_id: string;
  active: boolean;
  ai_enabled: boolean;
}

const API_KEY_QUERY = `
  select k.id, k.scope, k.expires_at, k.revoked_at, u.id as user_id, u.family_id, u.active, u.ai_enabled
  from api_keys k join users u on u.id = k.user_id
  where k.key_digest = ?`;

const KEY_SHAPE = /^[0-9a-f]{64}$/;

/**
 * Resolves the request's credential. A bearer token is tried first when present, and an invalid
 * one is refused even if a valid API key is also sent (finance-api.md).
 */
export async function authenticate(
  em: EntityManager,
  headers: { bearer?: string; apiKey?: string },
): Promise<Principal> {
  if (headers.bearer !== undefined) {
    // No access tokens are issued yet (login and SSO are not implemented), so none is valid.
    throw new Unauthorized();
  }
  const key = headers.apiKey?.trim();
  if (!key || !KEY_SHAPE.test(key)) throw new Unauthorized();
  const [row] = await sql<CredentialRow>(em, API_KEY_QUERY, [digestApiKey(key)]);
  const now = Date.now();
  if (!row || row.revoked_at || (row.expires_at && new Date(row.expires_at).getTime() <= now)) throw new Unauthorized();
  if (!row.active) throw new Unauthorized('Account has been deactivated');
  return {
    userId: row.user_id,
    familyId: row.family_id,
    scope: row.scope,
    aiEnabled: row.ai_enabled,
    credential: { kind: 'api_key', id: row.id },
  };
}
