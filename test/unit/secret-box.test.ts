import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSealingKey, open, seal } from '../../server/auth/secret-box.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('secret box', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and every seal of one text differs', () => {
    const first = seal(key, 'JBSWY3DPEHPK3PXP');
    expect(open(key, first)).toBe('JBSWY3DPEHPK3PXP');
    expect(seal(key, 'JBSWY3DPEHPK3PXP')).not.toBe(first);
    expect(first).not.toContain('JBSWY3DPEHPK3PXP');
  });

  it('refuses another key and an altered text', () => {
    const sealed = seal(key, 'secret');
    expect(() => open(randomBytes(32), sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other!').toString('base64url');
    expect(() => open(key, parts.join('.'))).toThrow();
    expect(() => open(key, 'plain text')).toThrow(/not a sealed secret/);
  });

  it('reads MFA_ENCRYPTION_KEY as hex or base64 and names it when it is not 32 bytes', () => {
    const dataDir = '/nonexistent';
    expect(loadSealingKey({ envKey: key.toString('hex'), dataDir })).toEqual(key);
    expect(loadSealingKey({ envKey: key.toString('base64'), dataDir })).toEqual(key);
    expect(() => loadSealingKey({ envKey: 'abcd', dataDir })).toThrow(/MFA_ENCRYPTION_KEY must hold a 32-byte key/);
  });

  it('without one, creates a key file readable by its owner only and keeps using it', () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'sealing-')), 'data');
    dirs.push(path.dirname(dataDir));
    const created = loadSealingKey({ envKey: undefined, dataDir });
    expect(statSync(path.join(dataDir, 'mfa-encryption.key')).mode & 0o777).toBe(0o600);
    expect(loadSealingKey({ envKey: undefined, dataDir })).toEqual(created);
  });
});
