import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';

/**
 * Seals a secret the server must read back later (a TOTP secret): AES-256-GCM with a random IV,
 * `v1.<iv>.<tag>.<ciphertext>` in base64url. A copy of the database alone reveals nothing.
 */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
}

/** Opens what {@link seal} made with the same key; throws when the key differs or the text was altered. */
export function open(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A 32-byte key written as 64 hex characters or as base64. */
function parseKey(text: string, origin: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error(`${origin} must hold a 32-byte key (64 hex characters or base64)`);
  return key;
}

/**
 * The key that seals second-factor secrets: MFA_ENCRYPTION_KEY when set (every API process and the
 * admin CLI must share it), else `<dataDir>/mfa-encryption.key`, created on first use with a
 * random key and readable by its owner only, which suits one machine running everything.
 */
export function loadSealingKey(options: { envKey: string | undefined; dataDir: string }): Buffer {
  if (options.envKey) return parseKey(options.envKey, 'MFA_ENCRYPTION_KEY');
  const file = path.join(options.dataDir, 'mfa-encryption.key');
  try {
    return parseKey(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  try {
    // `wx`: when two processes start at once, the second reads the first one's key.
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseKey(readFileSync(file, 'utf8'), file);
}
