import { setTimeout as sleep } from 'node:timers/promises';
import { APIConnectionError, APIError } from 'openai';
import { ProviderBusy } from './provider-errors.ts';

/**
 * Whether a failed request may succeed when sent again: the rules of the openai client's own
 * `shouldRetry` (its retries are off, see model-client.ts), so providers that steer them with
 * `x-should-retry` keep working.
 */
function retryable(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  const told = error.headers?.get('x-should-retry');
  if (told === 'true' || told === 'false') return told === 'true';
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/**
 * The wait a provider asked for, in milliseconds: `retry-after-ms` (OpenAI's), else `Retry-After`
 * as seconds or as an HTTP date; undefined when it names none (or nothing readable).
 */
export function requestedWaitMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const raw = headers?.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  // An HTTP date names its month; Date.parse would also take '-5' for a year.
  const at = /[a-z]/i.test(raw) ? Date.parse(raw) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The client's own backoff when the provider names no wait: 0.5 s doubling to 8 s, less up to a quarter. */
function backoffMs(retry: number): number {
  return Math.min(500 * 2 ** retry, 8000) * (1 - Math.random() * 0.25);
}

export interface RetryPolicy {
  /** Retries after the first attempt (AI_MAX_RETRIES). */
  maxRetries: number;
  /** The longest wait allowed now: AI_RETRY_AFTER_MAX_SECONDS, or what is left of the reply's time if less. */
  maxWaitMs(): number;
  /** Ends a wait at once; the caller reads why from the signal's reason. */
  signal: AbortSignal;
}

/**
 * Runs `attempt` and sends it again after a passing failure. A provider that asks for a longer
 * wait than `maxWaitMs` gets no retry: the reply fails at once with the time it named
 * (`ProviderBusy`), instead of holding a worker slot for as long as it says.
 */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (policy.signal.aborted || !retryable(error)) throw error;
      const now = Date.now();
      const asked = error instanceof APIError ? requestedWaitMs(error.headers, now) : undefined;
      const limit = policy.maxWaitMs();
      if (asked !== undefined && asked > limit) throw new ProviderBusy((error as APIError).status, now + asked);
      const wait = asked ?? backoffMs(retry);
      if (retry >= policy.maxRetries || wait > limit) throw error;
      await sleep(wait, undefined, { signal: policy.signal });
    }
  }
}
