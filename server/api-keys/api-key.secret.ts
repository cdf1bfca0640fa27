import { createHash, randomBytes } from 'node:crypto';

/** A new API key: 64 hex characters, shown once. */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** What is stored for a key: its SHA-256 digest (hex). A key has 256 random bits, so no salt or slow hash is needed. */
export function digestApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
