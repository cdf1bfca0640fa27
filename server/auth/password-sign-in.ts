import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';
import { ServerBusy, Unauthorized } from '../core/errors.ts';
import type { WorkSlots } from '../core/work-slots.ts';
import { hashPassword, verifyPassword } from '../users/password.ts';
import type { Clock } from '../core/clock.ts';
import { beginSignInAttempt, type LoginThrottleConfig } from './login-throttle.ts';
import { verifySecondFactor } from './second-factor.ts';

/** The user as sign-in needs them. */
export interface SignInUser {
  id: string;
  family_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  ai_enabled: boolean;
  active: boolean;
  otp_required: boolean;
  otp_secret: string | null;
}

export const USER_COLUMNS = 'id, family_id, email, first_name, last_name, ai_enabled, active, otp_required, otp_secret';

export const INVALID_CREDENTIALS = 'Invalid email or password';
export const DEACTIVATED = 'Account has been deactivated';

/** 401 with `mfa_required: true`: the user has a second factor. */
export class MfaRequired extends Unauthorized {
  constructor(message: string) {
    super(message, { mfa_required: true });
  }
}

/** What sign-in needs besides the database. */
export interface SignInContext {
  throttle: LoginThrottleConfig;
  /** Password hashes running at once in this process: each holds 128 MiB while it runs. */
  passwordHashes: WorkSlots;
  /** Seals and opens second-factor secrets. */
  sealingKey: Buffer;
  clock: Clock;
}

/** A hash of nothing, checked for an unknown email so that it costs what a known one costs. */
let decoy: Promise<string> | undefined;

/**
 * The user of `email` when `password` is theirs; the same work and answer for an unknown email.
 * The hashing waits for a slot of `hashes`.
 */
async function checkPassword(
  em: EntityManager,
  hashes: WorkSlots,
  email: string,
  password: string,
): Promise<SignInUser | undefined> {
  const [user] = await sql<SignInUser & { password_hash: string | null }>(
    em,
    `select ${USER_COLUMNS}, password_hash from users where lower(email) = ?`,
    [email.trim().toLowerCase()],
  );
  const upgraded = await hashes.run(async () => {
    const stored = user?.password_hash ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
    const { valid, rehash } = await verifyPassword(password, stored);
    if (!user?.password_hash || !valid) return undefined;
    return { hash: rehash ? await hashPassword(password) : undefined };
  });
  if (!upgraded) return undefined;
  if (upgraded.hash) await sql(em, 'update users set password_hash = ? where id = ?', [upgraded.hash, user!.id]);
  return user;
}

/**
 * Email and password (and, with `otpCode`, the second factor) checked under the sign-in limits
 * (login-throttle.ts) and the bound on password hashes at once (503 when none is free in time).
 * `secondFactor: 'refuse'` is the linking flow's rule: a user with a second factor must sign in
 * with it instead. Every other refusal is a 401 in the documented words.
 */
export async function signInWithPassword(
  em: EntityManager,
  context: SignInContext,
  input: { email: string; password: string; otpCode?: string | undefined; address: string },
  secondFactor: 'check' | 'refuse',
): Promise<SignInUser> {
  const now = context.clock();
  const attempt = await beginSignInAttempt(em, context.throttle, { address: input.address, email: input.email }, now);
  let user: SignInUser | undefined;
  try {
    user = await checkPassword(em, context.passwordHashes, input.email, input.password);
  } catch (error) {
    // Refused before the password was looked at: neither a failure nor an attempt.
    if (error instanceof ServerBusy) await attempt.withdrawn();
    throw error;
  }
  if (!user) throw new Unauthorized(INVALID_CREDENTIALS);
  if (user.otp_required) {
    if (secondFactor === 'refuse') {
      await attempt.succeeded();
      throw new MfaRequired('MFA users should sign in with email and password');
    }
    if (!input.otpCode) {
      await attempt.succeeded();
      throw new MfaRequired('Two-factor authentication code is required');
    }
    // A wrong code stays counted: six digits are guessed quickly without a limit.
    if (!(await verifySecondFactor(em, user, input.otpCode, context.sealingKey, now))) {
      throw new MfaRequired('Two-factor authentication code is invalid');
    }
  }
  await attempt.succeeded();
  if (!user.active) throw new Unauthorized(DEACTIVATED);
  return user;
}

/** The token response of a sign-in: the tokens and who they belong to. */
export function withUser<T extends object>(tokens: T, user: SignInUser) {
  return {
    ...tokens,
    user: {
      id: user.id,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      ai_enabled: user.ai_enabled,
    },
  };
}
