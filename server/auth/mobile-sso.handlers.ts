import * as client from 'openid-client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { sql } from '../core/sql.ts';
import type { Handlers } from '../http/contract.ts';
import { readDevice, type Device } from './access-tokens.ts';
import type { AuthDependencies } from './auth-dependencies.ts';
import { findLinkedUser } from './sso-accounts.ts';
import { issueCode, type PendingSignIn } from './sso-codes.ts';
import type { SsoProvider } from './sso-providers.ts';
import { appRedirect, SsoFailure } from './sso-redirect.ts';
import { digestSecret, newSecretToken } from './secret-token.ts';

/** The cookie that ties a callback to the browser that started the sign-in (login CSRF). */
const FLOW_COOKIE = 'finance_sso';
/** A sign-in at the provider must come back within 10 minutes. */
const FLOW_SECONDS = 600;
const SCOPE = 'openid email profile';

interface StartedFlow {
  code_verifier: string;
  nonce: string;
  device: Device;
}

function known(providers: Map<string, SsoProvider>, name: string): SsoProvider {
  const provider = providers.get(name);
  if (!provider) throw new SsoFailure('invalid_provider', `No identity provider named "${name}" is configured`);
  return provider;
}

async function discovered(provider: SsoProvider, log: Logger): Promise<client.Configuration> {
  try {
    return await provider.configuration();
  } catch (error) {
    log.warn({ err: error, provider: provider.name }, 'identity provider discovery failed');
    throw new SsoFailure('sso_failed', `${provider.displayName} could not be reached; please try again later`);
  }
}

/**
 * Takes the flow a callback's `state` belongs to, once: a replayed callback finds nothing. Only
 * the browser holding the flow's cookie takes it; a callback without it (or with another) is
 * refused and leaves the flow to the browser that started it, so a forged or leaked callback URL
 * cannot use up the real sign-in.
 */
async function takeFlow(
  em: EntityManager,
  provider: string,
  state: string,
  binding: string | undefined,
  now: number,
): Promise<StartedFlow> {
  const [row] = await sql<{ bound: boolean | null; flow: StartedFlow | null }>(
    em,
    `with found as (
       select state_digest, binding_digest = ? as bound from sso_flows
       where state_digest = ? and provider = ? and expires_at > ?
     ), taken as (
       delete from sso_flows where state_digest = (select state_digest from found where bound)
       returning code_verifier, nonce, device
     )
     select (select bound from found) as bound, (select row_to_json(taken) from taken) as flow`,
    // No cookie matches no flow: a digest is never empty.
    [binding ? digestSecret(binding) : '', digestSecret(state), provider, new Date(now)],
  );
  if (row?.flow) return row.flow;
  if (row?.bound === false) {
    throw new SsoFailure('invalid_state', 'This sign-in was started in another browser; please start again');
  }
  throw new SsoFailure('invalid_state', 'This sign-in has expired or was already used; please start again');
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * The browser steps of mobile single sign-on: start sends the browser to the provider, the
 * callback turns the provider's answer into a redirect to the app carrying a one-time code, never
 * a token. Failures are thrown as {@link SsoFailure}; the router turns them into app redirects.
 */
export function mobileSsoHandlers(deps: AuthDependencies): Handlers<'startMobileSso' | 'finishMobileSso'> {
  const { clock, providers, config } = deps;
  const callbackUrl = (provider: SsoProvider) => `${config.publicUrl}/auth/mobile/${provider.name}/callback`;
  // The flow is over: its cookie goes too.
  const toApp = (outcome: Record<string, string | undefined>) => ({
    status: 302 as const,
    headers: {
      Location: appRedirect(config.mobileAppRedirectUrl, outcome),
      'Set-Cookie': `${FLOW_COOKIE}=; Path=/auth/mobile; HttpOnly; SameSite=Lax; Max-Age=0`,
    },
  });

  return {
    async startMobileSso({ em, params, query, log }) {
      const provider = known(providers, params.provider);
      const device = readDevice(query);
      if (!device) throw new SsoFailure('missing_device_info', 'Device information is required');
      const configuration = await discovered(provider, log);
      const state = newSecretToken();
      const binding = newSecretToken();
      const nonce = client.randomNonce();
      const verifier = client.randomPKCECodeVerifier();
      await sql(
        em,
        `insert into sso_flows (state_digest, binding_digest, provider, code_verifier, nonce, device, expires_at)
         values (?, ?, ?, ?, ?, ?, ?)`,
        [
          digestSecret(state),
          digestSecret(binding),
          provider.name,
          verifier,
          nonce,
          JSON.stringify(device),
          new Date(clock() + FLOW_SECONDS * 1000),
        ],
      );
      const authorizationUrl = client.buildAuthorizationUrl(configuration, {
        redirect_uri: callbackUrl(provider),
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      const secure = config.publicUrl.startsWith('https:') ? '; Secure' : '';
      return {
        status: 302,
        headers: {
          Location: authorizationUrl.href,
          'Set-Cookie': `${FLOW_COOKIE}=${binding}; Path=/auth/mobile; HttpOnly; SameSite=Lax; Max-Age=${FLOW_SECONDS}${secure}`,
        },
      };
    },

    async finishMobileSso({ em, params, query, cookies, log }) {
      const provider = known(providers, params.provider);
      if (!query.state) throw new SsoFailure('invalid_state', 'The sign-in response has no state; please start again');
      const flow = await takeFlow(em, provider.name, query.state, cookies.finance_sso, clock());
      if (query.error) {
        throw new SsoFailure(
          'sso_failed',
          `${provider.displayName} did not sign you in: ${query.error_description ?? query.error}`,
        );
      }
      const configuration = await discovered(provider, log);
      const response = new URL(callbackUrl(provider));
      for (const name of ['code', 'state', 'iss'] as const) {
        if (query[name] !== undefined) response.searchParams.set(name, query[name]);
      }
      let claims: client.IDToken & Record<string, unknown>;
      try {
        const tokens = await client.authorizationCodeGrant(configuration, response, {
          pkceCodeVerifier: flow.code_verifier,
          expectedState: query.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        claims = { ...tokens.claims()! };
        if (!claims.email && tokens.access_token) {
          Object.assign(claims, await client.fetchUserInfo(configuration, tokens.access_token, claims.sub));
        }
      } catch (error) {
        log.warn({ err: error, provider: provider.name }, 'identity provider sign-in did not verify');
        throw new SsoFailure('sso_failed', `The sign-in with ${provider.displayName} could not be completed`);
      }

      const user = await findLinkedUser(em, provider.name, claims.sub);
      if (user) {
        if (!user.active) throw new SsoFailure('account_deactivated', 'Account has been deactivated');
        // The reference's app reads only `error` and `message` of an outcome that is no sign-in.
        if (user.otp_required) {
          return toApp({
            status: 'mfa_not_supported',
            error: 'mfa_not_supported',
            message: 'MFA users should sign in with email and password',
          });
        }
        const code = await issueCode(em, 'exchange', user.id, { device: flow.device }, clock());
        return toApp({ code });
      }
      // An address the provider says it has not verified is not trusted to name a new account.
      const email = claims.email_verified === false ? null : text(claims.email);
      const pending: PendingSignIn = {
        provider: provider.name,
        uid: claims.sub,
        email,
        first_name: text(claims.given_name),
        last_name: text(claims.family_name),
        name: text(claims.name),
        issuer: claims.iss,
        device: flow.device,
        allow_account_creation: provider.allowAccountCreation && email !== null,
      };
      const linkingCode = await issueCode(em, 'linking', null, pending, clock());
      return toApp({
        status: 'account_not_linked',
        linking_code: linkingCode,
        email: email ?? undefined,
        first_name: pending.first_name ?? undefined,
        last_name: pending.last_name ?? undefined,
        allow_account_creation: String(pending.allow_account_creation),
      });
    },
  };
}
