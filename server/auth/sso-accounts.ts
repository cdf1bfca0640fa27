import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';
import { ValidationFailed } from '../core/errors.ts';
import { USER_COLUMNS, type SignInUser } from './password-sign-in.ts';
import type { PendingSignIn } from './sso-codes.ts';

/** The user a provider identity is linked to, if any. */
export async function findLinkedUser(
  em: EntityManager,
  provider: string,
  uid: string,
): Promise<SignInUser | undefined> {
  const [user] = await sql<SignInUser>(
    em,
    `select ${USER_COLUMNS} from users where id = (select user_id from sso_identities where provider = ? and uid = ?)`,
    [provider, uid],
  );
  return user;
}

/**
 * Links a provider identity (with its issuer) to a user. The unique (provider, uid) index decides
 * between two sign-ins linking one identity at once: the second is a 422 and rolls back.
 */
export async function linkIdentity(tx: EntityManager, userId: string, pending: PendingSignIn): Promise<void> {
  const rows = await sql(
    tx,
    `insert into sso_identities (id, user_id, provider, uid, issuer, email) values (?, ?, ?, ?, ?, ?)
     on conflict do nothing returning id`,
    [randomUUID(), userId, pending.provider, pending.uid, pending.issuer, pending.email],
  );
  if (!rows.length) throw new ValidationFailed([{ message: 'This identity is already linked to a user' }]);
}

/** The name a new family gets: its first member's, as the provider or the app gave it. */
function familyName(user: { first_name: string | null; last_name: string | null }, pending: PendingSignIn): string {
  const full = [user.first_name, user.last_name].filter(Boolean).join(' ') || pending.name || pending.email || 'My';
  return `${full}'s household`.slice(0, 255);
}

/**
 * Creates a user without a password (they sign in through the provider), in a family of their
 * own with the service's default currency, and links the identity. An email already taken is a
 * 422 found by the unique index itself, so two concurrent creations cannot both pass a check.
 */
export async function createUserFromIdentity(
  tx: EntityManager,
  pending: PendingSignIn,
  names: { first_name: string | null; last_name: string | null },
  currency: string,
): Promise<SignInUser> {
  if (!pending.email) {
    throw new ValidationFailed([{ message: 'The identity provider did not share an email address' }]);
  }
  const familyId = randomUUID();
  await sql(tx, 'insert into families (id, name, currency) values (?, ?, ?)', [
    familyId,
    familyName(names, pending),
    currency,
  ]);
  const [user] = await sql<SignInUser>(
    tx,
    `insert into users (id, family_id, email, first_name, last_name) values (?, ?, ?, ?, ?)
     on conflict do nothing returning ${USER_COLUMNS}`,
    [randomUUID(), familyId, pending.email.trim().toLowerCase(), names.first_name, names.last_name],
  );
  if (!user) throw new ValidationFailed([{ message: 'Email has already been taken' }]);
  await linkIdentity(tx, user.id, pending);
  return user;
}
