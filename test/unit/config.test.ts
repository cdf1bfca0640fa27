import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';

const provider = { name: 'keycloak', issuer: 'https://sso.example.com/realms/home', client_id: 'finance' };

describe('sign-in settings', () => {
  it('defaults: no providers, the app scheme, the local public URL, USD, the sign-in limits', () => {
    const config = loadConfig({ PORT: '4000' });
    expect(config).toMatchObject({
      ssoProviders: [],
      mobileAppRedirectUrl: 'financeapp://oauth/callback',
      publicUrl: 'http://localhost:4000',
      defaultCurrency: 'USD',
      loginAttemptsPerAddress: 30,
      loginAttemptWindowSeconds: 60,
      loginFailuresPerAddress: 50,
      loginFailuresPerEmailAndAddress: 10,
      loginFailuresPerEmail: 100,
      loginFailureWindowSeconds: 900,
      passwordHashConcurrency: availableParallelism(),
      passwordHashWaitMs: 2000,
      mfaEncryptionKey: undefined,
    });
  });

  it('reads several providers, with a display name and account creation off unless said', () => {
    const config = loadConfig({
      SSO_PROVIDERS: JSON.stringify([
        { ...provider, client_secret: 's3cret', display_name: 'Home Keycloak' },
        { name: 'open', issuer: 'http://127.0.0.1:9000', client_id: 'app', allow_account_creation: true },
      ]),
      PUBLIC_URL: 'https://finance.example.com/',
      DEFAULT_CURRENCY: 'eur',
    });
    expect(config.ssoProviders).toEqual([
      {
        name: 'keycloak',
        displayName: 'Home Keycloak',
        issuer: provider.issuer,
        clientId: 'finance',
        clientSecret: 's3cret',
        allowAccountCreation: false,
      },
      {
        name: 'open',
        displayName: 'open',
        issuer: 'http://127.0.0.1:9000',
        clientId: 'app',
        clientSecret: undefined,
        allowAccountCreation: true,
      },
    ]);
    expect(config.publicUrl).toBe('https://finance.example.com');
    expect(config.defaultCurrency).toBe('EUR');
  });

  it.each([
    ['not JSON', '{', /SSO_PROVIDERS must be a JSON array/],
    ['an object', '{}', /SSO_PROVIDERS must be a JSON array/],
    ['a missing issuer', JSON.stringify([{ name: 'a', client_id: 'b' }]), /SSO_PROVIDERS\[0\]\.issuer must be/],
    [
      'a relative issuer',
      JSON.stringify([{ ...provider, issuer: 'sso' }]),
      /SSO_PROVIDERS\[0\]\.issuer must be an absolute URL/,
    ],
    [
      'a name outside a-z0-9_-',
      JSON.stringify([{ ...provider, name: 'Key Cloak' }]),
      /SSO_PROVIDERS\[0\]\.name must be/,
    ],
    ['a name twice', JSON.stringify([provider, provider]), /"keycloak" is configured twice/],
    [
      'a non-boolean switch',
      JSON.stringify([{ ...provider, allow_account_creation: 'yes' }]),
      /allow_account_creation must be true or false/,
    ],
  ])('refuses %s, naming the setting', (_, value, message) => {
    expect(() => loadConfig({ SSO_PROVIDERS: value })).toThrow(message);
  });

  it('refuses an unknown default currency and a redirect URL that is not a URL', () => {
    expect(() => loadConfig({ DEFAULT_CURRENCY: 'XYZ' })).toThrow(/DEFAULT_CURRENCY must be an ISO 4217 code/);
    expect(() => loadConfig({ MOBILE_APP_REDIRECT_URL: 'callback' })).toThrow(
      /MOBILE_APP_REDIRECT_URL must be an absolute URL/,
    );
  });
});

describe('assistant settings', () => {
  it('defaults: a 30 s cap on Retry-After, 300 s per reply, two replies at once', () => {
    const config = loadConfig({ AI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(config.ai).toMatchObject({ retryAfterMaxSeconds: 30, replyTimeoutSeconds: 300 });
    expect(config.aiWorkerConcurrency).toBe(2);
  });

  it('reads them, and refuses values out of range, naming the setting', () => {
    const config = loadConfig({
      AI_BASE_URL: 'http://127.0.0.1:11434/v1',
      AI_RETRY_AFTER_MAX_SECONDS: '0',
      AI_REPLY_TIMEOUT_SECONDS: '45',
      AI_WORKER_CONCURRENCY: '5',
    });
    expect(config.ai).toMatchObject({ retryAfterMaxSeconds: 0, replyTimeoutSeconds: 45 });
    expect(config.aiWorkerConcurrency).toBe(5);
    const ai = { AI_BASE_URL: 'http://127.0.0.1:11434/v1' };
    expect(() => loadConfig({ ...ai, AI_REPLY_TIMEOUT_SECONDS: '0' })).toThrow(/AI_REPLY_TIMEOUT_SECONDS must be/);
    expect(() => loadConfig({ ...ai, AI_RETRY_AFTER_MAX_SECONDS: '-1' })).toThrow(/AI_RETRY_AFTER_MAX_SECONDS must be/);
    expect(() => loadConfig({ AI_WORKER_CONCURRENCY: '0' })).toThrow(/AI_WORKER_CONCURRENCY must be/);
  });
});
