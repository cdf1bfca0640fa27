import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

/** The provider went quiet longer than AI_TIMEOUT_SECONDS in the middle of a reply. */
export class ProviderSilent extends Error {
  constructor(seconds: number) {
    super(`the AI provider sent nothing for ${seconds} s`);
  }
}

/** The provider asked for a longer wait than AI_RETRY_AFTER_MAX_SECONDS (or the reply's time left). */
export class ProviderBusy extends Error {
  /** When the provider said to come back, to the whole second (rounded up). */
  readonly retryAt: string;
  constructor(
    readonly status: number | undefined,
    retryAtMs: number,
  ) {
    const retryAt = new Date(Math.ceil(retryAtMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    super(`the AI provider asked to wait until ${retryAt}`);
    this.retryAt = retryAt;
  }
}

/** The reply took longer than AI_REPLY_TIMEOUT_SECONDS in all: it ends where it was. */
export class ReplyTimedOut extends Error {
  constructor(readonly seconds: number) {
    super(`the reply took longer than ${seconds} s`);
  }
}

/**
 * The sentence a chat's `error` shows for a failed reply: what happened and what to do, without
 * the provider's own wording (which may carry account details). Internal errors get the generic one.
 */
export function failureSentence(error: unknown, model: string): string {
  if (error instanceof ProviderBusy) {
    const state = error.status === 429 ? 'rate limited' : 'unavailable';
    return `The AI provider is ${state} until ${error.retryAt}. Please try again after that time.`;
  }
  if (error instanceof ReplyTimedOut) {
    return `The reply took longer than ${error.seconds} seconds and was stopped there. Please try again.`;
  }
  if (error instanceof ProviderSilent || error instanceof APIConnectionTimeoutError) {
    return 'The AI provider is temporarily unavailable right now. Please try again in a few minutes.';
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    if (status === 429) return 'The AI provider is rate limited right now. Please try again in a few minutes.';
    if (status === 401 || status === 403) {
      return 'The AI provider is not configured correctly. Please contact your administrator.';
    }
    if (status === 404) return `The AI provider does not offer the model '${model}'. Pick another model and try again.`;
    if (status >= 500 || error instanceof APIConnectionError) {
      return 'The AI provider is temporarily unavailable right now. Please try again in a few minutes.';
    }
  }
  return 'Failed to generate a response. Please try again.';
}
