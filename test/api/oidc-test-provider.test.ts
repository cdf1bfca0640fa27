import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcTestProvider, type OidcTestProvider } from '../support/oidc-test-provider.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const CLIENT = { client_id: 'mobile-app', client_secret: 'mobile-app-secret', redirect_uris: [REDIRECT_URI] };
const USER = { sub: 'user-1', email: 'ada@example.test', given_name: 'Ada', family_name: 'Lovelace' };

describe('OIDC test provider', () => {
  let provider: OidcTestProvider;

  beforeAll(async () => {
    provider = await startOidcTestProvider({ clients: [CLIENT], users: [USER] });
  });

  afterAll(async () => {
    await provider.stop();
  });

  /** openid-client 6 sends the secret by client_secret_post unless told otherwise; the provider takes both. */
  async function discover(auth?: client.ClientAuth) {
    return client.discovery(new URL(provider.issuer), CLIENT.client_id, CLIENT.client_secret, auth, {
      execute: [client.allowInsecureRequests],
    });
  }

  async function authorizationRequest(config: client.Configuration) {
    const pkceCodeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, pkceCodeVerifier, state, nonce };
  }

  it('signs a user in with the authorization code flow and PKCE, claims in the ID token', async () => {
    const config = await discover(client.ClientSecretBasic(CLIENT.client_secret));
    const { url, pkceCodeVerifier, state, nonce } = await authorizationRequest(config);

    const callback = await provider.signIn(url.href, USER.sub);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);

    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({
      iss: provider.issuer,
      aud: CLIENT.client_id,
      sub: USER.sub,
      email: USER.email,
      email_verified: true,
      given_name: USER.given_name,
      family_name: USER.family_name,
    });
    const userInfo = await client.fetchUserInfo(config, tokens.access_token, USER.sub);
    expect(userInfo).toMatchObject({ sub: USER.sub, email: USER.email, given_name: USER.given_name });
  });

  it('serves users added after the start, and clients authenticating with client_secret_post', async () => {
    provider.addUser({ sub: 'user-2', email: 'grace@example.test', name: 'Grace Hopper', email_verified: false });
    const config = await discover();
    const { url, pkceCodeVerifier, state, nonce } = await authorizationRequest(config);

    const callback = await provider.signIn(url, 'user-2');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ sub: 'user-2', name: 'Grace Hopper', email_verified: false });
  });

  it('refuses an authorization request without PKCE', async () => {
    const config = await discover();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 's' });

    const callback = await provider.signIn(url, USER.sub);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('state')).toBe('s');
  });

  it('sends a denied sign-in back with error=access_denied and the state', async () => {
    const config = await discover();
    const { url, state } = await authorizationRequest(config);

    const callback = await provider.deny(url.href);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(provider.issuer);
  });

  it('refuses connections once stopped', async () => {
    const stopped = await startOidcTestProvider({ clients: [CLIENT], users: [USER] });
    await client.discovery(new URL(stopped.issuer), CLIENT.client_id, CLIENT.client_secret, undefined, {
      execute: [client.allowInsecureRequests],
    });
    await stopped.stop();

    await expect(
      client.discovery(new URL(stopped.issuer), CLIENT.client_id, CLIENT.client_secret, undefined, {
        execute: [client.allowInsecureRequests],
      }),
    ).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
  });
});
