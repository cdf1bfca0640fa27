import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enableSecondFactor } from '../../server/auth/second-factor.ts';
import { digestSecret } from '../../server/auth/secret-token.ts';
import { totpCode } from '../../server/auth/totp.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { bearer, device, login } from '../support/sign-in.ts';
import { BEHIND_A_PROXY, startTestServer, type TestServer } from '../support/test-server.ts';

const INVALID_LOGIN = { error: 'unauthorized', message: 'Invalid email or password' };

let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  // Sign-in limits high enough that only the limit tests below meet them, and room for the
  // concurrent sign-ins below to wait for a password hash however busy the machine is.
  server = await startTestServer({
    loginAttemptsPerAddress: 0,
    loginFailuresPerEmailAndAddress: 1000,
    loginFailuresPerEmail: 1000,
    loginFailuresPerAddress: 1000,
    passwordHashWaitMs: 60_000,
  });
  household = await createHousehold(server);
});
afterAll(() => server?.close());
afterEach(() => server.time.reset());

/** A user with a second factor; returns the secret their authenticator app holds. */
async function withSecondFactor(target: TestHousehold): Promise<string> {
  const { secret } = await enableSecondFactor(
    server.em(),
    { id: target.userId, email: target.email },
    server.sealingKey,
  );
  return secret;
}

describe('login', () => {
  it('signs a user in with a token pair for the device, stored as digests only', async () => {
    const response = await login(server, household.email, { device: device('login-1') });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 2592000,
      user: { id: household.userId, email: household.email, first_name: null, last_name: null, ai_enabled: false },
    });
    expect(Math.abs(response.body.created_at - Date.now() / 1000)).toBeLessThan(60);
    const { access_token, refresh_token } = response.body;
    const [row] = await server.query<Record<string, string>>(
      `select t.access_digest, t.refresh_digest, t.scope, d.device_name, d.device_type,
         extract(epoch from t.expires_at - t.created_at)::int as lifetime
       from oauth_tokens t join devices d on d.id = t.device_id where t.access_digest = $1`,
      [digestSecret(access_token)],
    );
    expect(row).toMatchObject({
      refresh_digest: digestSecret(refresh_token),
      scope: 'read_write',
      device_name: 'Phone login-1',
      device_type: 'ios',
      lifetime: 2592000,
    });
    const everything = JSON.stringify(await server.query('select * from oauth_tokens'));
    expect(everything).not.toContain(access_token);
    expect(everything).not.toContain(refresh_token);
  });

  it('gives a wrong password and an unknown email the same answer', async () => {
    const wrong = await login(server, household.email, { password: 'not the password' });
    const unknown = await login(server, 'nobody@example.test');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toMatchObject(INVALID_LOGIN);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('matches the email without regard to case or surrounding spaces', async () => {
    expect((await login(server, `  ${household.email.toUpperCase()} `)).status).toBe(200);
  });

  it.each([
    ['no device', undefined],
    ['an empty device', {}],
    ['a blank device_id', { ...device(), device_id: '  ' }],
    ['no device_type', { device_id: 'x', device_name: 'y' }],
  ])('answers %s with 400 before looking at the password', async (_, value) => {
    const response = await login(server, household.email, { password: 'wrong', device: value });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'bad_request',
      message: 'Device information is required',
      errors: [{ message: 'Device information is required', path: '/body/device' }],
    });
  });

  it('refuses a device type outside the contract with 422', async () => {
    const response = await login(server, household.email, { device: { ...device(), device_type: 'blackberry' } });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].path).toBe('/body/device/device_type');
  });

  it('keeps one token family per device: signing in again replaces that device only', async () => {
    const first = (await login(server, household.email, { device: device('phone') })).body;
    const other = (await login(server, household.email, { device: device('tablet') })).body;
    const again = (await login(server, household.email, { device: device('phone') })).body;
    expect((await server.api.call('listTags', { headers: bearer(first.access_token) })).status).toBe(401);
    expect((await server.api.call('refreshToken', { body: { refresh_token: first.refresh_token } })).status).toBe(401);
    expect((await server.api.call('listTags', { headers: bearer(again.access_token) })).status).toBe(200);
    expect((await server.api.call('listTags', { headers: bearer(other.access_token) })).status).toBe(200);
    const devices = await server.query('select device_id from devices where user_id = $1 and device_id = $2', [
      household.userId,
      'phone',
    ]);
    expect(devices).toHaveLength(1);
  });

  it('keeps the last of 20 concurrent sign-ins on one device, and only that one', { timeout: 120_000 }, async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => login(server, household.email, { device: device('busy') })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const [counted] = await server.query<{ live: number }>(
      `select count(*)::int as live from oauth_tokens t join devices d on d.id = t.device_id
       where d.user_id = $1 and d.device_id = 'busy' and t.revoked_at is null`,
      [household.userId],
    );
    expect(counted!.live).toBe(1);
    const working = await Promise.all(
      responses.map((response) => server.api.call('listTags', { headers: bearer(response.body.access_token) })),
    );
    expect(working.filter((response) => response.status === 200)).toHaveLength(1);
  });

  it('refuses a deactivated user, and a user without a password, whatever they send', async () => {
    const inactive = await createHousehold(server);
    await server.query('update users set active = false where id = $1', [inactive.userId]);
    const refused = await login(server, inactive.email);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('Account has been deactivated');
    const passwordless = await createHousehold(server);
    await server.query('update users set password_hash = null where id = $1', [passwordless.userId]);
    expect((await login(server, passwordless.email)).body).toMatchObject(INVALID_LOGIN);
    expect((await login(server, passwordless.email, { password: '' })).body).toMatchObject(INVALID_LOGIN);
  });

  it('answers a body that is not JSON with 400', async () => {
    const response = await server.api.request('POST', '/api/v1/auth/login', { body: '{"email":' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('bad_request');
  });
});

describe('second factor', () => {
  let user: TestHousehold;
  let secret: string;
  beforeAll(async () => {
    user = await createHousehold(server);
    secret = await withSecondFactor(user);
  });

  it('keeps the secret sealed in the database', async () => {
    const [row] = await server.query<{ otp_secret: string; otp_required: boolean }>(
      'select otp_secret, otp_required from users where id = $1',
      [user.userId],
    );
    expect(row!.otp_required).toBe(true);
    expect(row!.otp_secret).toMatch(/^v1\./);
    expect(row!.otp_secret).not.toContain(secret);
  });

  it('asks for the code, refuses a wrong one, accepts the right one once', async () => {
    const missing = await login(server, user.email);
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({
      message: 'Two-factor authentication code is required',
      mfa_required: true,
    });
    const wrongCode = String((Number(totpCode(secret, Date.now())) + 500_000) % 1_000_000).padStart(6, '0');
    const wrong = await login(server, user.email, { otp_code: wrongCode });
    expect(wrong.body).toMatchObject({ message: 'Two-factor authentication code is invalid', mfa_required: true });
    const code = totpCode(secret, Date.now());
    expect((await login(server, user.email, { otp_code: code, device: device('a') })).status).toBe(200);
    const replay = await login(server, user.email, { otp_code: code, device: device('b') });
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ message: 'Two-factor authentication code is invalid', mfa_required: true });
  });

  it('a wrong password stays a wrong password, without revealing the second factor', async () => {
    const response = await login(server, user.email, { password: 'nope', otp_code: totpCode(secret, Date.now()) });
    expect(response.body).toMatchObject(INVALID_LOGIN);
    expect(response.body.mfa_required).toBeUndefined();
  });

  it('allows one step of drift either way, not two, and never an older step than the last used', async () => {
    server.time.advance(120_000); // a fresh window, after the codes used above
    const now = server.time.now();
    expect((await login(server, user.email, { otp_code: totpCode(secret, now - 60_000) })).status).toBe(401);
    expect((await login(server, user.email, { otp_code: totpCode(secret, now + 30_000) })).status).toBe(200);
    // The phone's code for the current step is older than the step just accepted.
    expect((await login(server, user.email, { otp_code: totpCode(secret, now) })).status).toBe(401);
    server.time.advance(60_000);
    expect((await login(server, user.email, { otp_code: totpCode(secret, server.time.now()) })).status).toBe(200);
  });

  // 20 password hashes, a few at a time (PASSWORD_HASH_CONCURRENCY): slow on a busy machine.
  it('lets exactly one of 20 concurrent sign-ins with one code through', { timeout: 120_000 }, async () => {
    server.time.advance(600_000);
    const code = totpCode(secret, server.time.now());
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => login(server, user.email, { otp_code: code, device: device(`race-${i}`) })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(401)]);
  });
});

describe('refresh', () => {
  it('rotates: a new pair for the device, the old refresh and access tokens stop at once', async () => {
    const first = (await login(server, household.email, { device: device('rotate') })).body;
    const refreshed = await server.api.call('refreshToken', { body: { refresh_token: first.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer', expires_in: 2592000 });
    expect(refreshed.body.user).toBeUndefined();
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect((await server.api.call('listTags', { headers: bearer(first.access_token) })).status).toBe(401);
    expect((await server.api.call('listTags', { headers: bearer(refreshed.body.access_token) })).status).toBe(200);
    const again = await server.api.call('refreshToken', { body: { refresh_token: refreshed.body.refresh_token } });
    expect(again.status).toBe(200);
  });

  it('treats a used refresh token as stolen: every token of that device is revoked', async () => {
    const first = (await login(server, household.email, { device: device('stolen') })).body;
    const other = (await login(server, household.email, { device: device('untouched') })).body;
    const second = (await server.api.call('refreshToken', { body: { refresh_token: first.refresh_token } })).body;
    const reuse = await server.api.call('refreshToken', { body: { refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual({
      error: 'unauthorized',
      message: 'Invalid refresh token',
      errors: [{ message: 'Invalid refresh token' }],
    });
    expect((await server.api.call('listTags', { headers: bearer(second.access_token) })).status).toBe(401);
    expect((await server.api.call('refreshToken', { body: { refresh_token: second.refresh_token } })).status).toBe(401);
    expect((await server.api.call('listTags', { headers: bearer(other.access_token) })).status).toBe(200);
  });

  it('lets one of 20 concurrent refreshes with one token win, then revokes the family (a race is a reuse)', async () => {
    const first = (await login(server, household.email, { device: device('race') })).body;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.api.call('refreshToken', { body: { refresh_token: first.refresh_token } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(401)]);
    const winner = responses.find((response) => response.status === 200)!.body;
    expect((await server.api.call('listTags', { headers: bearer(winner.access_token) })).status).toBe(401);
    const [counted] = await server.query<{ live: number }>(
      `select count(*)::int as live from oauth_tokens t join devices d on d.id = t.device_id
       where d.device_id = 'race' and t.revoked_at is null`,
    );
    expect(counted!.live).toBe(0);
  });

  it.each([
    ['missing', {}],
    ['blank', { refresh_token: '  ' }],
  ])('answers a %s refresh token with 400', async (_, body) => {
    const response = await server.api.call('refreshToken', { body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'bad_request', message: 'Refresh token is required' });
  });

  it('refuses an unknown refresh token and one past its 90 days', async () => {
    expect((await server.api.call('refreshToken', { body: { refresh_token: 'x'.repeat(43) } })).status).toBe(401);
    const tokens = (await login(server, household.email, { device: device('old') })).body;
    server.time.advance(90 * 86_400_000 + 1000);
    expect((await server.api.call('refreshToken', { body: { refresh_token: tokens.refresh_token } })).status).toBe(401);
  });

  it('revokes the tokens of a user deactivated by any means (a trigger), so they do not come back', async () => {
    const leaving = await createHousehold(server);
    const tokens = (await login(server, leaving.email)).body;
    await server.query('update users set active = false where id = $1', [leaving.userId]);
    const live = await server.query('select id from oauth_tokens where user_id = $1 and revoked_at is null', [
      leaving.userId,
    ]);
    expect(live).toEqual([]);
    await server.query('update users set active = true where id = $1', [leaving.userId]);
    expect((await server.api.call('listTags', { headers: bearer(tokens.access_token) })).status).toBe(401);
    expect((await server.api.call('refreshToken', { body: { refresh_token: tokens.refresh_token } })).status).toBe(401);
  });
});

describe('bearer tokens', () => {
  let token: string;
  let other: TestHousehold;
  beforeAll(async () => {
    token = (await login(server, household.email, { device: device('bearer') })).body.access_token;
    other = await createHousehold(server);
  });

  it('works on reads and writes of the own family, with rate-limit headers', async () => {
    const created = await server.api.call('createTag', { headers: bearer(token), body: { tag: { name: 'Bearer' } } });
    expect(created.status).toBe(201);
    const listed = await server.api.call('listTags', { headers: bearer(token) });
    expect(listed.body.data.map((tag: { name: string }) => tag.name)).toContain('Bearer');
    expect(listed.headers.get('x-ratelimit-limit')).toBe('10000');
    const rows = await server.query('select family_id from tags where id = $1', [created.body.data.id]);
    expect(rows).toEqual([{ family_id: household.familyId }]);
  });

  it("sees another family's records as missing", async () => {
    const foreign = await server.api.call('createTag', { key: other.writeKey, body: { tag: { name: 'Theirs' } } });
    const response = await server.api.call('getTag', { headers: bearer(token), params: { id: foreign.body.data.id } });
    expect(response.status).toBe(404);
    const deleted = await server.api.call('deleteTag', {
      headers: bearer(token),
      params: { id: foreign.body.data.id },
    });
    expect(deleted.status).toBe(404);
  });

  it('is tried before the key: a bad bearer is 401 with a good key, a good bearer wins over a bad key', async () => {
    const bad = await server.api.call('listTags', { key: household.writeKey, headers: bearer('y'.repeat(43)) });
    expect(bad.status).toBe(401);
    expect(bad.body.message).toBe('Access token or API key is invalid, expired, or missing');
    const good = await server.api.call('listTags', { key: 'f'.repeat(64), headers: bearer(token) });
    expect(good.status).toBe(200);
    const malformed = await server.api.call('listTags', {
      key: household.writeKey,
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(malformed.status).toBe(401);
  });

  it('expires after 30 days', async () => {
    server.time.advance(30 * 86_400_000 - 60_000);
    expect((await server.api.call('listTags', { headers: bearer(token) })).status).toBe(200);
    server.time.advance(120_000);
    expect((await server.api.call('listTags', { headers: bearer(token) })).status).toBe(401);
  });

  it('is refused for a deactivated user with its own message', async () => {
    const leaving = await createHousehold(server);
    const access = (await login(server, leaving.email)).body.access_token;
    await server.query('update users set active = false where id = $1', [leaving.userId]);
    const response = await server.api.call('listTags', { headers: bearer(access) });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('Account has been deactivated');
  });

  it('counts requests per device across rotations', async () => {
    const tokens = (await login(server, household.email, { device: device('counted') })).body;
    const before = Number(
      (await server.api.call('listTags', { headers: bearer(tokens.access_token) })).headers.get(
        'x-ratelimit-remaining',
      ),
    );
    const next = (await server.api.call('refreshToken', { body: { refresh_token: tokens.refresh_token } })).body;
    const after = Number(
      (await server.api.call('listTags', { headers: bearer(next.access_token) })).headers.get('x-ratelimit-remaining'),
    );
    expect(after).toBe(before - 1);
  });
});

describe('failed sign-in limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      loginAttemptsPerAddress: 0,
      loginFailuresPerEmailAndAddress: 3,
      loginFailuresPerAddress: 6,
      passwordHashWaitMs: 60_000,
    });
  });
  afterAll(() => limited?.close());
  // Every test here signs in from 127.0.0.1: each starts with the address's count at zero.
  beforeEach(() => limited.query("delete from rate_limits where key like 'sign_in:%'"));

  it('stops guessing on one email from one address, the right password included, and says when to retry', async () => {
    const target = await createHousehold(limited);
    for (let i = 0; i < 3; i++) expect((await login(limited, target.email, { password: 'guess' })).status).toBe(401);
    const refused = await login(limited, target.email);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: 'rate_limit_exceeded',
      details: { limit: 3, current: 4 },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it('does not count successful sign-ins', async () => {
    const regular = await createHousehold(limited);
    for (let i = 0; i < 5; i++) expect((await login(limited, regular.email)).status).toBe(200);
  });

  it('limits one address across emails, whatever X-Forwarded-For claims without TRUST_PROXY', async () => {
    const seen = [];
    for (let i = 0; i < 7; i++) {
      const headers = { 'x-forwarded-for': `203.0.113.${i}` };
      seen.push((await login(limited, `guess-${i}@example.test`, { headers })).status);
    }
    expect(seen).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });

  it('counts exactly under a burst of 30 parallel guesses', async () => {
    const target = await createHousehold(limited);
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => login(limited, target.email, { password: 'burst' })),
    );
    // All the statuses, sorted: an odd one out is named in the failure.
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(3).fill(401), ...Array(27).fill(429)]);
  });

  it('counts wrong second-factor codes, which would otherwise be guessed quickly', async () => {
    const target = await createHousehold(limited);
    const { secret } = await enableSecondFactor(
      limited.em(),
      { id: target.userId, email: target.email },
      limited.sealingKey,
    );
    const wrong = String((Number(totpCode(secret, Date.now())) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 3; i++) expect((await login(limited, target.email, { otp_code: wrong })).status).toBe(401);
    expect((await login(limited, target.email, { otp_code: totpCode(secret, Date.now()) })).status).toBe(429);
  });
});

describe.each(BEHIND_A_PROXY)('failed sign-in limits behind a proxy, %s', (_, trustProxy) => {
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await startTestServer({ trustProxy, loginFailuresPerAddress: 3 });
  });
  afterAll(() => proxied?.close());

  it('count the address the proxy saw, whatever the client wrote on the left', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const headers = { 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` };
      statuses.push((await login(proxied, `stuffing-${i}@example.test`, { headers })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('sign-in limits that a stranger cannot turn against the owner (issue 27, item 6)', () => {
  let guarded: TestServer;
  beforeAll(async () => {
    guarded = await startTestServer({
      trustProxy: { kind: 'hops', hops: 1 },
      loginFailuresPerEmailAndAddress: 10,
      loginFailuresPerEmail: 15,
      loginFailuresPerAddress: 1000,
      loginAttemptsPerAddress: 0,
      passwordHashWaitMs: 60_000,
    });
  });
  afterAll(() => guarded?.close());
  afterEach(() => guarded.time.reset());

  /** A request as our proxy (the test client's socket) forwards it from `address`. */
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

  it("locks a stranger's 20 wrong passwords out at his address only: the owner signs in from hers", async () => {
    const owner = await createHousehold(guarded);
    const stranger = [];
    for (let i = 0; i < 20; i++) {
      stranger.push((await login(guarded, owner.email, { password: `guess ${i}`, ...from('203.0.113.66') })).status);
    }
    expect(stranger).toEqual([...Array(10).fill(401), ...Array(10).fill(429)]);
    // Refused guesses did not count against the email's limit of 15, so its counter stands at 10.
    expect((await login(guarded, owner.email, from('198.51.100.20'))).status).toBe(200);
    expect((await login(guarded, owner.email, { password: 'guess', ...from('198.51.100.20') })).status).toBe(401);
    // The stranger's address stays locked, the right password included.
    expect((await login(guarded, owner.email, from('203.0.113.66'))).status).toBe(429);
  });

  it('does not count refused attempts: a locked counter stays at its limit', async () => {
    const target = await createHousehold(guarded);
    const currents = [];
    for (let i = 0; i < 14; i++) {
      const response = await login(guarded, target.email, { password: 'guess', ...from('203.0.113.70') });
      if (response.status === 429) currents.push(response.body.details.current);
    }
    // 10 failures counted; each refusal finds the counter at 10 and adds nothing.
    expect(currents).toEqual([11, 11, 11, 11]);
  });

  it('limits attempts per address whatever their outcome, correct sign-ins included', async () => {
    const attempts = await startTestServer({ trustProxy: { kind: 'hops', hops: 1 }, loginAttemptsPerAddress: 5 });
    try {
      const regular = await createHousehold(attempts);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await login(attempts, regular.email, from('198.51.100.30'))).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await login(attempts, regular.email, from('198.51.100.31'))).status).toBe(200);
      attempts.time.advance(60_000);
      expect((await login(attempts, regular.email, from('198.51.100.30'))).status).toBe(200);
    } finally {
      await attempts.close();
    }
  });
});

describe('password hashes at once (issue 27, item 6)', () => {
  // Concurrent sign-ins of one user count as failures while they run (login-throttle.ts): the
  // failure limits would refuse some before the bound on hashes is met.
  const NO_SIGN_IN_LIMITS = {
    loginAttemptsPerAddress: 0,
    loginFailuresPerAddress: 0,
    loginFailuresPerEmailAndAddress: 0,
    loginFailuresPerEmail: 0,
  };

  it('lets 24 concurrent correct sign-ins through a small bound, none a 500', { timeout: 120_000 }, async () => {
    const bounded = await startTestServer({ ...NO_SIGN_IN_LIMITS, passwordHashConcurrency: 2 });
    try {
      const owner = await createHousehold(bounded);
      const responses = await Promise.all(
        Array.from({ length: 24 }, (_, i) => login(bounded, owner.email, { device: device(`bound-${i}`) })),
      );
      for (const response of responses) expect([200, 503]).toContain(response.status);
      expect(responses.filter((response) => response.status === 200).length).toBeGreaterThan(0);
    } finally {
      await bounded.close();
    }
  });

  it(
    'refuses what finds no free hash with 503 and Retry-After, and does not count it as an attempt',
    {
      timeout: 120_000,
    },
    async () => {
      const busy = await startTestServer({
        ...NO_SIGN_IN_LIMITS,
        loginAttemptsPerAddress: 24,
        passwordHashConcurrency: 1,
        passwordHashWaitMs: 0,
      });
      try {
        const owner = await createHousehold(busy);
        const responses = await Promise.all(
          Array.from({ length: 24 }, (_, i) => login(busy, owner.email, { device: device(`busy-${i}`) })),
        );
        const refused = responses.filter((response) => response.status === 503);
        const signedIn = responses.filter((response) => response.status === 200);
        expect(signedIn.length + refused.length).toBe(24);
        expect(signedIn.length).toBeGreaterThan(0);
        expect(refused.length).toBeGreaterThan(0);
        for (const response of refused) {
          expect(response.body).toEqual({
            error: 'server_busy',
            message: 'The server is busy. Try again in 1 seconds.',
            errors: [{ message: 'The server is busy. Try again in 1 seconds.' }],
          });
          expect(response.headers.get('retry-after')).toBe('1');
        }
        // The refused ones gave their attempt back: exactly that many more sign-ins fit in the 24.
        for (let i = 0; i < refused.length; i++) expect((await login(busy, owner.email)).status).toBe(200);
        expect((await login(busy, owner.email)).status).toBe(429);
      } finally {
        await busy.close();
      }
    },
  );
});
