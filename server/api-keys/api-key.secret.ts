import { randomBytes } from 'node:crypto';
import { digestSecret } from '../auth/secret-token.ts';

/** A new API key: 64 hex characters, shown once. */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** What is stored for a key: its SHA-256 digest, like every other client-held secret. */
export const digestApiKey = digestSecret;
