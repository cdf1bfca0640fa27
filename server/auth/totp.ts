import type { EntityManager } from '@mikro-orm/postgresql';
import { Secret, TOTP } from 'otpauth';
import { sql } from '../core/sql.ts';

const PERIOD_SECONDS = 30;
const ISSUER = 'Household Finance';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
function totp(secret: string, label = ''): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret });
}

/** A new second factor for `email`: the base32 secret and the otpauth:// URL an app scans. */
export function newTotpSecret(email: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUrl: totp(secret, email).toString() };
}

/** The current code of a secret (for tests and tooling that play the authenticator app). */
export function totpCode(secret: string, now: number): string {
  return totp(secret).generate({ timestamp: now });
}

/**
 * The time step a code belongs to, when it is right for now or one step either side (clock drift
 * of a phone); undefined when it is wrong. Only 6 digits are read, so a code cannot smuggle more.
 */
export function totpStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/**
 * Accepts a step once: only a step after the last accepted one passes, in one atomic statement,
 * so a code seen over someone's shoulder (or sent twice at once) signs in a single time.
 */
export async function claimTotpStep(em: EntityManager, userId: string, step: number): Promise<boolean> {
  const rows = await sql(
    em,
    'update users set otp_last_step = ? where id = ? and (otp_last_step is null or otp_last_step < ?) returning id',
    [step, userId, step],
  );
  return rows.length === 1;
}
