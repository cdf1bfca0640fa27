import type { Config } from '../config.ts';
import type { SignInContext } from './password-sign-in.ts';
import type { SsoProvider } from './sso-providers.ts';

/** What the sign-in operations need beyond the request: settings, the sealing key, providers, the clock. */
export interface AuthDependencies extends SignInContext {
  config: Pick<Config, 'publicUrl' | 'mobileAppRedirectUrl' | 'defaultCurrency'>;
  providers: Map<string, SsoProvider>;
}
