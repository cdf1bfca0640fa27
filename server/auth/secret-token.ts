import { hash, randomBytes } from 'node:crypto';

/** What every token and one-time code handed to a client looks like: 32 random bytes, base64url. */
export const SECRET_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new token or one-time code (256 random bits). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored for a client-held secret: its SHA-256 digest (hex). Each secret has 256 random
 * bits, so no salt or slow hash is needed, and a stolen table holds nothing that signs anyone in.
 * Every request with a credential computes one: the one-shot `hash` costs half of `createHash`'s.
 */
export function digestSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
