import OpenAI from 'openai';
import type { AiProviderConfig } from '../config.ts';

/**
 * The official client pointed at the configured server. Its own retries (with backoff, honouring
 * Retry-After) cover a refused or failed request before any text arrived; a local server without
 * keys still needs a non-empty key for the client.
 */
export function createModelClient(provider: AiProviderConfig): OpenAI {
  return new OpenAI({
    apiKey: provider.apiKey ?? 'none',
    baseURL: provider.baseUrl ?? null,
    maxRetries: provider.maxRetries,
    timeout: provider.timeoutSeconds * 1000,
  });
}
