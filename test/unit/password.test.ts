import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, OWASP_COST, passwordCost, verifyPassword } from '../../server/users/password.ts';

describe('passwords', () => {
  it('hashes at the OWASP cost (N=2^17, r=8, p=1) unless PASSWORD_SCRYPT_N says otherwise', () => {
    expect(passwordCost({})).toEqual({ N: 131072, r: 8, p: 1 });
    expect(passwordCost({ PASSWORD_SCRYPT_N: '32768' })).toEqual({ N: 32768, r: 8, p: 1 });
    for (const bad of ['1000', '16384', '2097152', 'x']) {
      expect(() => passwordCost({ PASSWORD_SCRYPT_N: bad })).toThrow(/PASSWORD_SCRYPT_N must be a power of two/);
    }
  });

  it('names the cost in the hash and verifies by it', async () => {
    const stored = await hashPassword('correct horse battery', OWASP_COST);
    expect(stored).toMatch(/^scrypt\$N=131072,r=8,p=1\$[0-9a-f]{32}\$[0-9a-f]{128}$/);
    expect(await verifyPassword('correct horse battery', stored)).toEqual({ valid: true, rehash: false });
    expect(await verifyPassword('correct horse batterY', stored)).toEqual({ valid: false, rehash: false });
  });

  it('accepts a hash of the earlier cost-less form and asks for a rehash', async () => {
    const salt = randomBytes(16);
    const legacy = `scrypt$${salt.toString('hex')}$${scryptSync('old secret 123', salt, 64).toString('hex')}`;
    expect(await verifyPassword('old secret 123', legacy)).toEqual({ valid: true, rehash: true });
    expect(await verifyPassword('wrong secret', legacy)).toEqual({ valid: false, rehash: false });
  });

  it('asks for a rehash of a hash made at a lower cost, and refuses malformed hashes', async () => {
    const cheap = await hashPassword('pass phrase', { N: 1024, r: 8, p: 1 });
    expect(await verifyPassword('pass phrase', cheap)).toEqual({ valid: true, rehash: true });
    expect(await verifyPassword('x', 'bcrypt$abc')).toEqual({ valid: false, rehash: false });
    expect(await verifyPassword('x', 'scrypt$N=a$00$00')).toEqual({ valid: false, rehash: false });
  });
});
