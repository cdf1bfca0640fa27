import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';
import type { Device } from './access-tokens.ts';
import { digestSecret, newSecretToken } from './secret-token.ts';

/** A linked sign-in's code lives 5 minutes, a pending one's linking code 10 (docs/api-decisions.md#mobile-single-sign-on). */
const LIFETIME_SECONDS = { exchange: 300, linking: 600 } as const;

export type CodeKind = keyof typeof LIFETIME_SECONDS;

/** A provider sign-in whose identity is not linked to a user yet, kept under a linking code. */
export interface PendingSignIn {
  provider: string;
  uid: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  name: string | null;
  issuer: string;
  device: Device;
  allow_account_creation: boolean;
}

/** What an exchange code stands for: a user signing in on a device. */
export interface LinkedSignIn {
  device: Device;
}

type Payload<K extends CodeKind> = K extends 'exchange' ? LinkedSignIn : PendingSignIn;

/** Stores a new one-time code (its digest only) and returns it in clear, for the app's callback URL. */
export async function issueCode<K extends CodeKind>(
  em: EntityManager,
  kind: K,
  userId: K extends 'exchange' ? string : null,
  payload: Payload<K>,
  now: number,
): Promise<string> {
  const code = newSecretToken();
  await sql(em, 'insert into sso_codes (digest, kind, user_id, payload, expires_at) values (?, ?, ?, ?, ?)', [
    digestSecret(code),
    kind,
    userId,
    JSON.stringify(payload),
    new Date(now + LIFETIME_SECONDS[kind] * 1000),
  ]);
  return code;
}

/** A live code's contents without using it up: for the checks that must leave the code usable. */
export async function peekCode<K extends CodeKind>(
  em: EntityManager,
  kind: K,
  code: string,
  now: number,
): Promise<Payload<K> | undefined> {
  const [row] = await sql<{ payload: Payload<K> }>(
    em,
    'select payload from sso_codes where digest = ? and kind = ? and expires_at > ?',
    [digestSecret(code), kind, new Date(now)],
  );
  return row?.payload;
}

/**
 * Uses a code up in one atomic statement: of any number of concurrent callers exactly one gets
 * its contents. Inside a transaction, a later failure rolls the deletion back (the code stays).
 */
export async function consumeCode<K extends CodeKind>(
  em: EntityManager,
  kind: K,
  code: string,
  now: number,
): Promise<{ user_id: string | null; payload: Payload<K> } | undefined> {
  const [row] = await sql<{ user_id: string | null; payload: Payload<K> }>(
    em,
    'delete from sso_codes where digest = ? and kind = ? and expires_at > ? returning user_id, payload',
    [digestSecret(code), kind, new Date(now)],
  );
  return row;
}

/** Forgets codes and unfinished provider sign-ins that have expired. */
export async function pruneSsoRecords(em: EntityManager, now: number): Promise<void> {
  await sql(em, 'delete from sso_codes where expires_at <= ?', [new Date(now)]);
  await sql(em, 'delete from sso_flows where expires_at <= ?', [new Date(now)]);
}
