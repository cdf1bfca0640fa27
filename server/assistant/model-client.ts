import OpenAI from 'openai';
import type { AiProviderConfig } from '../config.ts';

/**
 * The official client pointed at the configured server; a local server without keys still needs
 * a non-empty key for the client. Its own retries are off: they sleep for as long as a
 * provider's Retry-After says (an hour, if it says so) and no signal ends the sleep, so
 * provider-retry.ts retries instead, with a cap on the wait.
 */
export function createModelClient(provider: AiProviderConfig): OpenAI {
  return new OpenAI({
    apiKey: provider.apiKey ?? 'none',
    baseURL: provider.baseUrl ?? null,
    maxRetries: 0,
    timeout: provider.timeoutSeconds * 1000,
  });
}
