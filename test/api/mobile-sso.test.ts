import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableSecondFactor } from '../../server/auth/second-factor.ts';
import { digestSecret } from '../../server/auth/secret-token.ts';
import type { SsoProviderConfig } from '../../server/config.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import type { ApiResponse } from '../support/contract-client.ts';
import { startOidcTestProvider, type OidcTestProvider } from '../support/oidc-test-provider.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Mobile single sign-on over real HTTP: the real app, the real OpenID provider (oidc-provider on
// loopback) and every answer of the app checked against the contract by server.api.

const PUBLIC_URL = 'http://finance.test';
const APP_REDIRECT = 'financeapp://oauth/callback';
const PASSWORD = 'correct horse battery';
const CLIENT = {
  client_id: 'finance-mobile',
  client_secret: 'finance-mobile-secret',
  redirect_uris: [`${PUBLIC_URL}/auth/mobile/testidp/callback`, `${PUBLIC_URL}/auth/mobile/open/callback`],
};
const DEVICE = {
  device_id: 'device-1',
  device_name: "Ana's iPhone",
  device_type: 'ios',
  os_version: '17.4',
  app_version: '1.2.3',
};
const URL_SAFE_43 = /^[A-Za-z0-9_-]{43}$/;
const LINKING_INVALID = 'Linking code is invalid or expired';
const CODE_INVALID = 'Authorization code is invalid or expired';

let provider: OidcTestProvider;
/** Stopped before the app starts: a configured provider that cannot be reached. */
let downProvider: OidcTestProvider;

function providerConfigs(): SsoProviderConfig[] {
  const common = { issuer: provider.issuer, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret };
  return [
    { ...common, name: 'testidp', displayName: 'Test IdP', allowAccountCreation: false },
    { ...common, name: 'open', displayName: 'Open IdP', allowAccountCreation: true },
    { ...common, issuer: downProvider.issuer, name: 'down', displayName: 'Down IdP', allowAccountCreation: false },
  ];
}

function appServer(overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  return startTestServer({
    ssoProviders: providerConfigs(),
    publicUrl: PUBLIC_URL,
    mobileAppRedirectUrl: APP_REDIRECT,
    defaultCurrency: 'EUR',
    ...overrides,
  });
}

/** A provider user nobody has signed in with yet. */
function newIdentity(extra: { email?: string; given_name?: string; family_name?: string; name?: string } = {}) {
  const sub = `sub-${randomUUID()}`;
  const user = {
    sub,
    email: `${sub}@idp.example.test`,
    given_name: 'Ana',
    family_name: 'Silva',
    name: 'Ana Silva',
    ...extra,
  };
  provider.addUser(user);
  return user;
}

/** The app's callback URL a response redirects to; fails unless it is one (never JSON). */
function appRedirect(response: ApiResponse): URLSearchParams {
  expect(response.status).toBe(302);
  expect(response.body).toBeUndefined();
  expect(response.headers.get('content-type') ?? '').not.toContain('json');
  const location = response.headers.get('location')!;
  expect(location.startsWith(`${APP_REDIRECT}?`)).toBe(true);
  return new URL(location).searchParams;
}

function expectFailure(params: URLSearchParams, error: string): void {
  expect(Object.fromEntries(params)).toEqual({ error, message: expect.any(String) });
  expect(params.get('message')!.length).toBeGreaterThan(0);
}

function sessionCookie(response: ApiResponse): string | undefined {
  return /^finance_sso=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
}

function flows(server: TestServer) {
  /** GET /auth/mobile/:provider; on success the provider's authorization URL and the flow cookie. */
  async function start(name = 'testidp', query: Record<string, string | undefined> = DEVICE) {
    const response = await server.api.call('startMobileSso', { params: { provider: name }, query });
    expect(response.status).toBe(302);
    return { response, location: response.headers.get('location')!, cookie: sessionCookie(response) };
  }

  /** The provider's redirect, sent to the app as a browser would (the callback URL is on PUBLIC_URL). */
  function finish(callback: URL, cookie: string | undefined, extraQuery = '') {
    expect(callback.origin).toBe(PUBLIC_URL);
    expect(callback.pathname).toMatch(/^\/auth\/mobile\/[a-z]+\/callback$/);
    return server.api.request('GET', callback.pathname, {
      query: callback.search.slice(1) + extraQuery,
      headers: cookie === undefined ? {} : { cookie: `finance_sso=${cookie}` },
    });
  }

  /** The whole browser part: start, sign in at the provider as `sub`, back to the app (an outcome clears the flow cookie). */
  async function signIn(sub: string, name = 'testidp'): Promise<URLSearchParams> {
    const started = await start(name);
    const callback = await provider.signIn(started.location, sub);
    const finished = await finish(callback, started.cookie);
    const params = appRedirect(finished);
    if (!params.has('error')) {
      expect(finished.headers.get('set-cookie')).toMatch(/^finance_sso=; Path=\/auth\/mobile; .*Max-Age=0/);
    }
    return params;
  }

  /** A pending sign-in's linking code for a fresh provider user. */
  async function linkingCode(name = 'testidp', extra: Parameters<typeof newIdentity>[0] = {}) {
    const identity = newIdentity(extra);
    const params = await signIn(identity.sub, name);
    expect(params.get('status')).toBe('account_not_linked');
    return { identity, code: params.get('linking_code')! };
  }

  const link = (body: Record<string, unknown>) => server.api.call('linkSsoAccount', { body });
  const create = (body: Record<string, unknown>) => server.api.call('createSsoAccount', { body });
  const exchange = (body: Record<string, unknown>) => server.api.call('exchangeSsoCode', { body });

  async function codeRows(code: string) {
    return server.query('select * from sso_codes where digest = $1', [digestSecret(code)]);
  }

  async function identities(uid: string) {
    return server.query<{ user_id: string; provider: string; uid: string; issuer: string; email: string | null }>(
      'select user_id, provider, uid, issuer, email from sso_identities where uid = $1',
      [uid],
    );
  }

  return { start, finish, signIn, linkingCode, link, create, exchange, codeRows, identities };
}

function errorBody(message: string) {
  return { error: 'unauthorized', message, errors: [{ message }] };
}

function expectTokens(response: ApiResponse, user: { id?: string; email: string }) {
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({
    access_token: expect.stringMatching(URL_SAFE_43),
    refresh_token: expect.stringMatching(URL_SAFE_43),
    token_type: 'Bearer',
    user: { email: user.email, ...(user.id ? { id: user.id } : {}) },
  });
}

const serverErrors = (responses: ApiResponse[]) => responses.filter(({ status }) => status >= 500);

function statuses(responses: ApiResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  provider = await startOidcTestProvider({ clients: [CLIENT], users: [] });
  downProvider = await startOidcTestProvider({ clients: [CLIENT], users: [] });
  await downProvider.stop();
});
afterAll(() => provider?.stop());

describe('mobile single sign-on', () => {
  let server: TestServer;
  let household: TestHousehold;
  let sso: ReturnType<typeof flows>;

  beforeAll(async () => {
    server = await appServer();
    household = await createHousehold(server);
    sso = flows(server);
  });
  afterAll(() => server?.close());

  it('sends the browser to the provider with PKCE (S256), state and nonce, bound by an HttpOnly cookie', async () => {
    const { response, location, cookie } = await sso.start();
    const url = new URL(location);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('client_id')).toBe(CLIENT.client_id);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/auth/mobile/testidp/callback`);
    expect(url.searchParams.get('scope')!.split(' ')).toContain('openid');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(URL_SAFE_43);
    expect(url.searchParams.get('state')).toMatch(URL_SAFE_43);
    expect(url.searchParams.get('nonce')).toBeTruthy();

    expect(cookie).toMatch(URL_SAFE_43);
    const attributes = response.headers
      .get('set-cookie')!
      .split(';')
      .map((part) => part.trim().toLowerCase());
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=lax');
    expect(attributes).toContain('path=/auth/mobile');
    // Plain http public URL: no Secure attribute, or the browser would drop the cookie.
    expect(attributes).not.toContain('secure');

    // Only digests of the state and the cookie are kept.
    const [flow] = await server.query<Record<string, unknown>>('select * from sso_flows where state_digest = $1', [
      digestSecret(url.searchParams.get('state')!),
    ]);
    expect(flow).toMatchObject({ provider: 'testidp', binding_digest: digestSecret(cookie!), device: DEVICE });
    expect(JSON.stringify(flow)).not.toContain(url.searchParams.get('state'));
    expect(JSON.stringify(flow)).not.toContain(cookie);
  });

  it('answers an identity not linked yet with a one-time linking code kept as a digest for 10 minutes', async () => {
    const identity = newIdentity();
    const before = server.time.now();
    const params = await sso.signIn(identity.sub);
    const after = server.time.now();

    const code = params.get('linking_code')!;
    expect(code).toMatch(URL_SAFE_43);
    expect(Object.fromEntries(params)).toEqual({
      status: 'account_not_linked',
      linking_code: code,
      email: identity.email,
      first_name: 'Ana',
      last_name: 'Silva',
      allow_account_creation: 'false',
    });

    const rows = await sso.codeRows(code);
    expect(rows).toHaveLength(1);
    const row = rows[0] as { kind: string; user_id: string | null; payload: unknown; expires_at: Date };
    expect(row.kind).toBe('linking');
    expect(row.user_id).toBeNull();
    expect(row.expires_at.getTime()).toBeGreaterThanOrEqual(before + 600_000);
    expect(row.expires_at.getTime()).toBeLessThanOrEqual(after + 600_000);
    expect(row.payload).toEqual({
      provider: 'testidp',
      uid: identity.sub,
      email: identity.email,
      first_name: 'Ana',
      last_name: 'Silva',
      name: 'Ana Silva',
      issuer: provider.issuer,
      device: DEVICE,
      allow_account_creation: false,
    });
    // The code itself is stored nowhere.
    const everything = await server.query('select * from sso_codes');
    expect(JSON.stringify(everything)).not.toContain(code);
  });

  it('says whether account creation is allowed per provider', async () => {
    const identity = newIdentity();
    const params = await sso.signIn(identity.sub, 'open');
    expect(params.get('status')).toBe('account_not_linked');
    expect(params.get('allow_account_creation')).toBe('true');
  });

  it('does not trust an address the provider has not verified: no email, no account creation', async () => {
    const identity = newIdentity();
    provider.addUser({ ...identity, email_verified: false });
    const params = await sso.signIn(identity.sub, 'open');
    expect(params.get('status')).toBe('account_not_linked');
    expect(params.has('email')).toBe(false);
    expect(params.get('allow_account_creation')).toBe('false');
  });

  describe('sso_link', () => {
    it('needs a linking code (400), a live one (401)', async () => {
      for (const body of [{}, { linking_code: '' }, { linking_code: '   ' }]) {
        const response = await sso.link({ ...body, email: household.email, password: PASSWORD });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({
          error: 'bad_request',
          message: 'Linking code is required',
          errors: [{ message: 'Linking code is required', path: '/body/linking_code' }],
        });
      }
      const unknown = await sso.link({ linking_code: 'x'.repeat(43), email: household.email, password: PASSWORD });
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual(errorBody(LINKING_INVALID));
    });

    it('keeps the code on a wrong password or a user with a second factor, then links with the right one', async () => {
      const { identity, code } = await sso.linkingCode();

      // Rule 2: a wrong password is a 401 and the code stays usable.
      const wrong = await sso.link({ linking_code: code, email: household.email, password: 'wrong password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(errorBody('Invalid email or password'));
      expect(await sso.codeRows(code)).toHaveLength(1);

      // Rule 1: a user with a second factor is refused with mfa_required, nothing linked, code kept.
      const mfaUser = await createHousehold(server);
      await enableSecondFactor(server.em(), { id: mfaUser.userId, email: mfaUser.email }, server.sealingKey);
      const mfa = await sso.link({ linking_code: code, email: mfaUser.email, password: PASSWORD });
      expect(mfa.status).toBe(401);
      expect(mfa.body).toEqual({
        ...errorBody('MFA users should sign in with email and password'),
        mfa_required: true,
      });
      expect(await sso.codeRows(code)).toHaveLength(1);
      expect(await sso.identities(identity.sub)).toEqual([]);

      const linked = await sso.link({ linking_code: code, email: household.email, password: PASSWORD });
      expectTokens(linked, { id: household.userId, email: household.email });
      // Rule 6: the provider's issuer is stored on the identity.
      expect(await sso.identities(identity.sub)).toEqual([
        {
          user_id: household.userId,
          provider: 'testidp',
          uid: identity.sub,
          issuer: provider.issuer,
          email: identity.email,
        },
      ]);
      expect(await sso.codeRows(code)).toEqual([]);

      const again = await sso.link({ linking_code: code, email: household.email, password: PASSWORD });
      expect(again.status).toBe(401);
      expect(again.body).toEqual(errorBody(LINKING_INVALID));

      const accounts = await server.api.call('listAccounts', {
        headers: { authorization: `Bearer ${linked.body.access_token}` },
      });
      expect(accounts.status).toBe(200);
    });
  });

  describe('a linked identity', () => {
    let identity: ReturnType<typeof newIdentity>;
    let user: TestHousehold;

    beforeAll(async () => {
      user = await createHousehold(server);
      const pending = await sso.linkingCode();
      identity = pending.identity;
      expect((await sso.link({ linking_code: pending.code, email: user.email, password: PASSWORD })).status).toBe(200);
    });

    it('signs in with a one-time code in the redirect (no token in the URL), exchanged once for tokens', async () => {
      const params = await sso.signIn(identity.sub);
      expect([...params.keys()]).toEqual(['code']);
      const code = params.get('code')!;
      expect(code).toMatch(URL_SAFE_43);

      const tokens = await sso.exchange({ code });
      expectTokens(tokens, { id: user.userId, email: user.email });
      // The tokens of the answer appear nowhere in the redirect the browser saw.
      expect(params.toString()).not.toContain(tokens.body.access_token);
      expect(params.toString()).not.toContain(tokens.body.refresh_token);
      const accounts = await server.api.call('listAccounts', {
        headers: { authorization: `Bearer ${tokens.body.access_token}` },
      });
      expect(accounts.status).toBe(200);

      const again = await sso.exchange({ code });
      expect(again.status).toBe(401);
      expect(again.body).toEqual(errorBody(CODE_INVALID));
    });

    it('refuses a code older than 5 minutes, and a missing or blank one', async () => {
      const code = (await sso.signIn(identity.sub)).get('code')!;
      server.time.advance(5 * 60_000 + 1000);
      try {
        const expired = await sso.exchange({ code });
        expect(expired.status).toBe(401);
        expect(expired.body).toEqual(errorBody(CODE_INVALID));
      } finally {
        server.time.reset();
      }
      for (const body of [{}, { code: '' }, { code: '  ' }]) {
        const response = await sso.exchange(body);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: 'bad_request', message: 'Code is required' });
      }
    });

    it('is refused with status=mfa_not_supported once the user has a second factor, and no code is issued', async () => {
      const mfaUser = await createHousehold(server);
      const pending = await sso.linkingCode();
      expect((await sso.link({ linking_code: pending.code, email: mfaUser.email, password: PASSWORD })).status).toBe(
        200,
      );
      await enableSecondFactor(server.em(), { id: mfaUser.userId, email: mfaUser.email }, server.sealingKey);

      const params = await sso.signIn(pending.identity.sub);
      // The reference's app reads only `error` and `message` of an outcome that is no sign-in (issue 28).
      expect(Object.fromEntries(params)).toEqual({
        status: 'mfa_not_supported',
        error: 'mfa_not_supported',
        message: 'MFA users should sign in with email and password',
      });
      expect(await server.query('select 1 from sso_codes where user_id = $1', [mfaUser.userId])).toEqual([]);
    });
  });

  it('a deactivated linked user: error=account_deactivated, no code issued', async () => {
    const user = await createHousehold(server);
    const pending = await sso.linkingCode();
    expect((await sso.link({ linking_code: pending.code, email: user.email, password: PASSWORD })).status).toBe(200);
    await server.query('update users set active = false where id = $1', [user.userId]);

    expectFailure(await sso.signIn(pending.identity.sub), 'account_deactivated');
    expect(await server.query('select 1 from sso_codes where user_id = $1', [user.userId])).toEqual([]);
  });

  describe('sso_create_account', () => {
    it('is refused with 403 when the provider does not allow it, and the code still links', async () => {
      const { identity, code } = await sso.linkingCode('testidp');
      const refused = await sso.create({ linking_code: code });
      expect(refused.status).toBe(403);
      const message = 'SSO account creation is disabled. Please contact an administrator.';
      expect(refused.body).toEqual({ error: 'forbidden', message, errors: [{ message }] });
      expect(await sso.codeRows(code)).toHaveLength(1);

      // Rule 3: the code stays usable.
      const user = await createHousehold(server);
      const linked = await sso.link({ linking_code: code, email: user.email, password: PASSWORD });
      expectTokens(linked, { id: user.userId, email: user.email });
      expect((await sso.identities(identity.sub))[0]?.user_id).toBe(user.userId);
    });

    it('needs a linking code (400), a live one (401)', async () => {
      for (const body of [{}, { linking_code: ' ' }]) {
        const response = await sso.create(body);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: 'bad_request', message: 'Linking code is required' });
      }
      const unknown = await sso.create({ linking_code: 'y'.repeat(43) });
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual(errorBody(LINKING_INVALID));
    });

    it('creates a user with the provider email and the names sent, in a new family with the default currency', async () => {
      const { identity, code } = await sso.linkingCode('open', { email: `Mixed.${randomUUID()}@IdP.example.test` });
      const created = await sso.create({ linking_code: code, first_name: 'Beatriz', last_name: 'Costa' });
      const email = identity.email.toLowerCase();
      expectTokens(created, { email });
      expect(created.body.user).toMatchObject({ first_name: 'Beatriz', last_name: 'Costa' });

      const [user] = await server.query<Record<string, unknown>>(
        `select u.id, u.email, u.first_name, u.last_name, u.password_hash, u.family_id, f.currency
           from users u join families f on f.id = u.family_id where u.id = $1`,
        [created.body.user.id],
      );
      expect(user).toMatchObject({
        email,
        first_name: 'Beatriz',
        last_name: 'Costa',
        currency: 'EUR',
        password_hash: null,
      });
      expect(user!.family_id).not.toBe(household.familyId);
      expect(await sso.identities(identity.sub)).toEqual([
        {
          user_id: created.body.user.id,
          provider: 'open',
          uid: identity.sub,
          issuer: provider.issuer,
          email: identity.email,
        },
      ]);
      expect(await sso.codeRows(code)).toEqual([]);
      expect((await sso.create({ linking_code: code })).status).toBe(401);

      // The new user signs in through the provider from now on.
      const params = await sso.signIn(identity.sub, 'open');
      expectTokens(await sso.exchange({ code: params.get('code')! }), { id: created.body.user.id, email });
    });

    it("takes the provider's names when none are sent", async () => {
      const { identity, code } = await sso.linkingCode('open', { given_name: 'Carla', family_name: 'Dias' });
      const created = await sso.create({ linking_code: code });
      expectTokens(created, { email: identity.email });
      expect(created.body.user).toMatchObject({ first_name: 'Carla', last_name: 'Dias' });
      const [user] = await server.query('select first_name, last_name from users where id = $1', [
        created.body.user.id,
      ]);
      expect(user).toEqual({ first_name: 'Carla', last_name: 'Dias' });
    });

    it('answers 422 when the email is taken, and keeps the code', async () => {
      const { code } = await sso.linkingCode('open', { email: household.email.toUpperCase() });
      const usersBefore = await server.query('select id from users');
      const familiesBefore = await server.query('select id from families');

      const taken = await sso.create({ linking_code: code });
      expect(taken.status).toBe(422);
      expect(taken.body).toEqual({
        error: 'validation_failed',
        message: 'Email has already been taken',
        errors: [{ message: 'Email has already been taken' }],
      });
      // Rule 5 (and the rollback): nothing written, the code is still there.
      expect(await server.query('select id from users')).toHaveLength(usersBefore.length);
      expect(await server.query('select id from families')).toHaveLength(familiesBefore.length);
      expect(await sso.codeRows(code)).toHaveLength(1);
      expect((await sso.create({ linking_code: code })).status).toBe(422);
    });

    it('refuses a linking code after 10 minutes', async () => {
      const { code } = await sso.linkingCode('open');
      server.time.advance(10 * 60_000 + 1000);
      try {
        const expired = await sso.create({ linking_code: code });
        expect(expired.status).toBe(401);
        expect(expired.body).toEqual(errorBody(LINKING_INVALID));
        const link = await sso.link({ linking_code: code, email: household.email, password: PASSWORD });
        expect(link.status).toBe(401);
        expect(link.body).toEqual(errorBody(LINKING_INVALID));
      } finally {
        server.time.reset();
      }
    });
  });

  describe('failures redirect to the app with error and message', () => {
    it('an unknown provider: invalid_provider', async () => {
      const response = await server.api.call('startMobileSso', { params: { provider: 'nosuch' }, query: DEVICE });
      expectFailure(appRedirect(response), 'invalid_provider');
      expect(response.headers.get('set-cookie')).toBeNull();
      const callback = await server.api.call('finishMobileSso', {
        params: { provider: 'nosuch' },
        query: { code: 'abc', state: 'x'.repeat(43) },
      });
      expectFailure(appRedirect(callback), 'invalid_provider');
    });

    it.each([
      ['no device_id', { ...DEVICE, device_id: undefined }],
      ['a blank device_name', { ...DEVICE, device_name: ' ' }],
      ['an unknown device_type', { ...DEVICE, device_type: 'blackberry' }],
    ])('%s: missing_device_info', async (_, query) => {
      const response = await server.api.call('startMobileSso', { params: { provider: 'testidp' }, query });
      expectFailure(appRedirect(response), 'missing_device_info');
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it('a provider that cannot be reached: sso_failed', async () => {
      const response = await server.api.call('startMobileSso', { params: { provider: 'down' }, query: DEVICE });
      expectFailure(appRedirect(response), 'sso_failed');
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it('a callback with an unknown state or none: invalid_state', async () => {
      const { location, cookie } = await sso.start();
      const callback = await provider.signIn(location, newIdentity().sub);

      const unknownState = new URL(callback);
      unknownState.searchParams.set('state', 'z'.repeat(43));
      expectFailure(appRedirect(await sso.finish(unknownState, cookie)), 'invalid_state');

      const noState = new URL(callback);
      noState.searchParams.delete('state');
      expectFailure(appRedirect(await sso.finish(noState, cookie)), 'invalid_state');

      // Neither attempt used the real flow up.
      expect(appRedirect(await sso.finish(callback, cookie)).get('status')).toBe('account_not_linked');
    });

    it('a replayed callback: invalid_state', async () => {
      const { location, cookie } = await sso.start();
      const callback = await provider.signIn(location, newIdentity().sub);
      expect(appRedirect(await sso.finish(callback, cookie)).get('status')).toBe('account_not_linked');
      expectFailure(appRedirect(await sso.finish(callback, cookie)), 'invalid_state');
    });

    it.each([
      ['without the flow cookie', undefined],
      ['with another browser cookie', 'w'.repeat(43)],
    ])('a callback %s: invalid_state, and the flow stays for the browser that started it', async (_, cookie) => {
      const started = await sso.start();
      const callback = await provider.signIn(started.location, newIdentity().sub);
      const codesBefore = await server.query('select digest from sso_codes');
      const refused = appRedirect(await sso.finish(callback, cookie));
      expectFailure(refused, 'invalid_state');
      expect(refused.get('message')).toMatch(/started in another browser/);
      expect(await server.query('select digest from sso_codes')).toHaveLength(codesBefore.length);
      // The stray callback did not use the sign-in up: the real browser's callback still finishes it.
      expect(appRedirect(await sso.finish(callback, started.cookie)).get('status')).toBe('account_not_linked');
    });

    it('the user denies at the provider: sso_failed', async () => {
      const { location, cookie } = await sso.start();
      const callback = await provider.deny(location);
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expectFailure(appRedirect(await sso.finish(callback, cookie)), 'sso_failed');
    });

    it('a tampered authorization code: sso_failed', async () => {
      const { location, cookie } = await sso.start();
      const callback = await provider.signIn(location, newIdentity().sub);
      callback.searchParams.set('code', `${callback.searchParams.get('code')!.slice(0, -4)}AAAA`);
      expectFailure(appRedirect(await sso.finish(callback, cookie)), 'sso_failed');
    });

    it("a callback with parameters of the provider's own still succeeds", async () => {
      const { location, cookie } = await sso.start();
      const callback = await provider.signIn(location, newIdentity().sub);
      const params = appRedirect(await sso.finish(callback, cookie, '&session_state=abc&scope=openid'));
      expect(params.get('status')).toBe('account_not_linked');
      expect(params.get('linking_code')).toMatch(URL_SAFE_43);
    });
  });
});

describe('mobile single sign-on under concurrency (rule 4)', () => {
  let server: TestServer;
  let sso: ReturnType<typeof flows>;

  beforeAll(async () => {
    // The sign-in limits count attempts while they are in flight (before the password is checked),
    // so 50 parallel right-password links from one address would hit them: off here, and room for
    // each to wait for a password hash however busy the machine is.
    server = await appServer({
      loginAttemptsPerAddress: 0,
      loginFailuresPerAddress: 0,
      loginFailuresPerEmailAndAddress: 0,
      loginFailuresPerEmail: 0,
      passwordHashWaitMs: 60_000,
    });
    sso = flows(server);
  });
  afterAll(() => server?.close());

  // Each request checks the password first (scrypt, about 0.6 s of CPU each), so 50 take a while.
  it('50 concurrent sso_link with one code: exactly one links', { timeout: 120_000 }, async () => {
    const user = await createHousehold(server);
    const { identity, code } = await sso.linkingCode();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => sso.link({ linking_code: code, email: user.email, password: PASSWORD })),
    );
    expect(serverErrors(responses)).toEqual([]);
    expect(statuses(responses)).toEqual({ 200: 1, 401: 49 });
    for (const response of responses.filter(({ status }) => status === 401)) {
      expect(response.body).toEqual(errorBody(LINKING_INVALID));
    }
    expect(await sso.identities(identity.sub)).toHaveLength(1);
    expect(await server.query('select 1 from oauth_tokens where user_id = $1', [user.userId])).toHaveLength(1);
  });

  it('50 concurrent sso_create_account with one code: exactly one user', async () => {
    const { identity, code } = await sso.linkingCode('open');
    const usersBefore = await server.query('select id from users');
    const responses = await Promise.all(Array.from({ length: 50 }, () => sso.create({ linking_code: code })));
    expect(serverErrors(responses)).toEqual([]);
    expect(statuses(responses)).toEqual({ 200: 1, 401: 49 });
    for (const response of responses.filter(({ status }) => status === 401)) {
      expect(response.body).toEqual(errorBody(LINKING_INVALID));
    }
    expect(await server.query('select id from users')).toHaveLength(usersBefore.length + 1);
    expect(await server.query('select 1 from users where email = $1', [identity.email])).toHaveLength(1);
    expect(await sso.identities(identity.sub)).toHaveLength(1);
  });

  it('20 concurrent sso_exchange with one code: exactly one signs in', async () => {
    const user = await createHousehold(server);
    const pending = await sso.linkingCode();
    expect((await sso.link({ linking_code: pending.code, email: user.email, password: PASSWORD })).status).toBe(200);
    const code = (await sso.signIn(pending.identity.sub)).get('code')!;

    const responses = await Promise.all(Array.from({ length: 20 }, () => sso.exchange({ code })));
    expect(serverErrors(responses)).toEqual([]);
    expect(statuses(responses)).toEqual({ 200: 1, 401: 19 });
    for (const response of responses.filter(({ status }) => status === 401)) {
      expect(response.body).toEqual(errorBody(CODE_INVALID));
    }
    // One token pair from the link, one from the exchange.
    expect(await server.query('select 1 from oauth_tokens where user_id = $1', [user.userId])).toHaveLength(2);
  });
});
