import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost parameters: N (CPU/memory cost), r (block size), p (parallelism). */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP's current recommendation for scrypt (Password Storage Cheat Sheet): N=2^17, r=8, p=1. */
export const OWASP_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };

/** Hashes written before the cost was stored with them used Node's default. */
const LEGACY_COST: ScryptCost = { N: 16384, r: 8, p: 1 };

/**
 * The cost of new hashes: OWASP's, unless PASSWORD_SCRYPT_N sets another N (a power of two from
 * 2^15 to 2^20). The test suite lowers it to 2^15, as test environments of other frameworks lower
 * their password stretching: the same code runs, with a quarter of the work per hash.
 */
export function passwordCost(env: NodeJS.ProcessEnv = process.env): ScryptCost {
  const raw = env.PASSWORD_SCRYPT_N;
  if (raw === undefined || raw === '') return OWASP_COST;
  const N = Number(raw);
  if (!Number.isInteger(N) || N < 2 ** 15 || N > 2 ** 20 || (N & (N - 1)) !== 0) {
    throw new Error(`PASSWORD_SCRYPT_N must be a power of two from 32768 to 1048576, got "${raw}"`);
  }
  return { ...OWASP_COST, N };
}

export const PASSWORD_COST: ScryptCost = passwordCost();
const KEY_LENGTH = 64;

function scrypt(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node refuses more than 32 MiB unless maxmem allows it.
  const options: ScryptOptions = { ...cost, maxmem: 128 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N=..,r=..,p=..$<salt hex>$<hash hex>`: a salted, memory-hard hash that names its own cost. */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, cost);
  return `scrypt$N=${cost.N},r=${cost.r},p=${cost.p}$${salt.toString('hex')}$${hash.toString('hex')}`;
}

/** The parts of a stored hash, in either the current or the earlier (cost-less) form. */
function parse(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt') return undefined;
  const [params, saltHex, hashHex] = parts.length === 4 ? parts.slice(1) : [undefined, ...parts.slice(1)];
  if (!saltHex || !hashHex) return undefined;
  let cost = LEGACY_COST;
  if (params !== undefined) {
    const match = /^N=(\d+),r=(\d+),p=(\d+)$/.exec(params);
    if (!match) return undefined;
    cost = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  }
  return { cost, salt: Buffer.from(saltHex, 'hex'), hash: Buffer.from(hashHex, 'hex') };
}

/**
 * Checks a password against its stored hash. `rehash` says the hash was made with less than the
 * current cost: after a successful sign-in the caller stores `hashPassword(password)` instead.
 */
export async function verifyPassword(password: string, stored: string): Promise<{ valid: boolean; rehash: boolean }> {
  const parsed = parse(stored);
  if (!parsed) return { valid: false, rehash: false };
  const actual = await scrypt(password, parsed.salt, parsed.hash.length, parsed.cost);
  const valid = timingSafeEqual(actual, parsed.hash);
  const weaker = (['N', 'r', 'p'] as const).some((name) => parsed.cost[name] < PASSWORD_COST[name]);
  return { valid, rehash: valid && weaker };
}
