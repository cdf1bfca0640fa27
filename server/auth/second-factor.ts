import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../core/sql.ts';
import { open, seal } from './secret-box.ts';
import { claimTotpStep, newTotpSecret, totpStep } from './totp.ts';

/**
 * Turns on a TOTP second factor for a user: a new secret, stored sealed, returned this once (the
 * admin hands it to the user). A second call replaces the secret, so a lost phone is dealt with
 * by enabling again.
 */
export async function enableSecondFactor(
  em: EntityManager,
  user: { id: string; email: string },
  key: Buffer,
): Promise<{ secret: string; otpauthUrl: string }> {
  const created = newTotpSecret(user.email);
  await sql(
    em,
    'update users set otp_required = true, otp_secret = ?, otp_last_step = null, updated_at = now() where id = ?',
    [seal(key, created.secret), user.id],
  );
  return created;
}

/** Turns the second factor off and forgets its secret. */
export async function disableSecondFactor(em: EntityManager, userId: string): Promise<void> {
  await sql(
    em,
    'update users set otp_required = false, otp_secret = null, otp_last_step = null, updated_at = now() where id = ?',
    [userId],
  );
}

/** Whether `code` is the user's current code and has not been used yet (it is used up by this call). */
export async function verifySecondFactor(
  em: EntityManager,
  user: { id: string; otp_secret: string | null },
  code: string,
  key: Buffer,
  now: number,
): Promise<boolean> {
  if (!user.otp_secret) return false;
  const step = totpStep(open(key, user.otp_secret), code, now);
  return step !== undefined && (await claimTotpStep(em, user.id, step));
}
