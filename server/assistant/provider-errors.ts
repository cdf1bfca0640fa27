import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

/** The provider went quiet longer than AI_TIMEOUT_SECONDS in the middle of a reply. */
export class ProviderSilent extends Error {
  constructor(seconds: number) {
    super(`the AI provider sent nothing for ${seconds} s`);
  }
}

/**
 * The sentence a chat's `error` shows for a failed reply: what happened and what to do, without
 * the provider's own wording (which may carry account details). Internal errors get the generic one.
 */
export function failureSentence(error: unknown, model: string): string {
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
