import type { EntityManager } from '@mikro-orm/postgresql';
import { Unauthorized } from '../core/errors.ts';
import { sql, type SqlTarget } from '../core/sql.ts';
import { isoTimestamp } from '../db/timestamp.ts';

interface CurrentUserRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  ai_enabled: boolean;
  otp_required: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  family_id: string;
  family_name: string;
  currency: string;
  locale: string;
  date_format: string;
}

/** The API's user object: who the credential belongs to, with their family's display preferences. */
function currentUserView(row: CurrentUserRow) {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    ai_enabled: row.ai_enabled,
    mfa_enabled: row.otp_required,
    family: {
      id: row.family_id,
      name: row.family_name,
      currency: row.currency,
      locale: row.locale,
      date_format: row.date_format,
    },
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/**
 * The signed-in user. A user deleted while the request ran has no credential any more: 401, as
 * their next request gets.
 */
export async function currentUser(db: SqlTarget, userId: string) {
  const [row] = await sql<CurrentUserRow>(
    db,
    `select u.id, u.email, u.first_name, u.last_name, u.ai_enabled, u.otp_required, u.created_at, u.updated_at,
            f.id as family_id, f.name as family_name, f.currency::text as currency, f.locale, f.date_format
       from users u join families f on f.id = u.family_id
      where u.id = ?`,
    [userId],
  );
  if (!row) throw new Unauthorized();
  return currentUserView(row);
}

/** A name as stored: trimmed, and null when nothing is left. */
function cleanName(name: string | null): string | null {
  const trimmed = name?.trim();
  return trimmed ? trimmed : null;
}

/** Changes the names that were sent; the others keep their value. */
export async function renameUser(
  em: EntityManager,
  userId: string,
  names: { first_name?: string | null; last_name?: string | null },
): Promise<void> {
  const changes = (['first_name', 'last_name'] as const).filter((name) => names[name] !== undefined);
  const rows = await sql(
    em,
    `update users set ${changes.map((name) => `${name} = ?`).join(', ')}, updated_at = now() where id = ? returning id`,
    [...changes.map((name) => cleanName(names[name]!)), userId],
  );
  if (!rows.length) throw new Unauthorized();
}

/** Turns the assistant on for the user (the server must have a provider: checked by the caller). */
export async function enableAssistant(em: EntityManager, userId: string): Promise<void> {
  // Turning it on again changes nothing, not even the time of the last change.
  const rows = await sql(
    em,
    `update users set ai_enabled = true, updated_at = case when ai_enabled then updated_at else now() end
      where id = ? returning id`,
    [userId],
  );
  if (!rows.length) throw new Unauthorized();
}
