import type { Logger } from 'pino';
import { BadRequest, DomainError } from '../core/errors.ts';

/** A failure of the browser steps, named by the code the app receives as `error`. */
export class SsoFailure extends BadRequest {
  constructor(code: string, message: string) {
    super(message, undefined, code);
  }
}

/** The app's callback URL with the outcome in its query (custom schemes such as `financeapp://` included). */
export function appRedirect(appUrl: string, outcome: Record<string, string | undefined>): string {
  const url = new URL(appUrl);
  for (const [key, value] of Object.entries(outcome)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

/**
 * Turns any failure of a browser step into a redirect to the app with `error` and `message`: the
 * browser is an in-app web view, which can do nothing with a JSON error page. Unexpected failures
 * are logged and reported as `sso_failed`, never with their details.
 */
export function ssoErrorRedirect(appUrl: string): (error: unknown, log: Logger) => string {
  return (error, log) => {
    let code = 'sso_failed';
    let message = 'Single sign-on failed; please try again';
    if (error instanceof SsoFailure) {
      ({ code, message } = error);
    } else if (error instanceof DomainError && error.kind === 'not_found') {
      // The provider is the only thing in these paths; one too long for the contract is not configured either.
      code = 'invalid_provider';
      message = 'No such identity provider is configured';
    } else if (error instanceof DomainError) {
      code = 'invalid_request';
      message = error.message;
    } else {
      log.error({ err: error }, 'single sign-on step failed');
    }
    return appRedirect(appUrl, { error: code, message });
  };
}
