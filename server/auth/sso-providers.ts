import * as client from 'openid-client';
import type { SsoProviderConfig } from '../config.ts';

/** A configured OpenID Connect provider, with its discovered metadata once it has been read. */
export interface SsoProvider extends SsoProviderConfig {
  /** Discovery from the issuer, done at the first sign-in and kept; a failure is retried next time. */
  configuration(): Promise<client.Configuration>;
}

/** Seconds a provider may take to answer one request (discovery, token, userinfo). */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** Plain http is for a provider on this machine only (a development identity provider). */
function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

function provider(config: SsoProviderConfig): SsoProvider {
  let discovered: Promise<client.Configuration> | undefined;
  const discover = async () => {
    const issuer = new URL(config.issuer);
    const configuration = await client.discovery(
      issuer,
      config.clientId,
      config.clientSecret,
      config.clientSecret ? client.ClientSecretPost(config.clientSecret) : client.None(),
      {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        ...(issuer.protocol === 'http:' && isLoopback(issuer) ? { execute: [client.allowInsecureRequests] } : {}),
      },
    );
    configuration.timeout = PROVIDER_TIMEOUT_SECONDS;
    return configuration;
  };
  return {
    ...config,
    configuration() {
      discovered ??= discover().catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
      return discovered;
    },
  };
}

/** The providers of SSO_PROVIDERS by name. */
export function ssoProviders(configs: SsoProviderConfig[]): Map<string, SsoProvider> {
  return new Map(configs.map((config) => [config.name, provider(config)]));
}
