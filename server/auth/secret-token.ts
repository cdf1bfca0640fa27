import { createHash, randomBytes } from 'node:crypto';

/** What every token and one-time code handed to a client looks like: 32 random bytes, base64url. */
export const SECRET_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new token or one-time code (256 random bits). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored for a client-held secret: its SHA-256 digest (hex). Each secret has 256 random
 * bits, so no salt or slow hash is needed, and a stolen table holds nothing that signs anyone in.
 */
export function digestSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
