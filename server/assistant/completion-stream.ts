import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ProviderSilent } from './provider-errors.ts';
import { withRetries, type RetryPolicy } from './provider-retry.ts';

/** A tool call the model asked for, put together from its streamed fragments. */
export interface RequestedToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, not yet checked. */
  arguments: string;
}

export interface Completion {
  text: string;
  toolCalls: RequestedToolCall[];
}

export interface StreamOptions {
  /** Each piece of text as it arrives. */
  onText(delta: string): Promise<void> | void;
  /** Longest silence between two chunks before the reply is given up. */
  idleTimeoutSeconds: number;
  /** Ends the request, or a wait before a retry, at once; its reason is what is thrown. */
  signal: AbortSignal;
  /** Retries of a refused request and the longest wait allowed before one. */
  retry: Omit<RetryPolicy, 'signal'>;
}

/**
 * One streamed chat completion: text deltas go to `onText` as they come, tool-call fragments are
 * joined by their index. A refused request is sent again (provider-retry.ts). The client's own
 * timeout ends at the response headers, so a watchdog aborts a stream that goes quiet; it sleeps
 * while we wait before a retry. An abort (the watchdog's, or `signal`'s) throws its reason.
 */
export async function streamCompletion(
  client: OpenAI,
  request: Omit<ChatCompletionCreateParamsStreaming, 'stream'>,
  options: StreamOptions,
): Promise<Completion> {
  options.signal.throwIfAborted();
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', stop, { once: true });
  let watchdog: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(
      () => controller.abort(new ProviderSilent(options.idleTimeoutSeconds)),
      options.idleTimeoutSeconds * 1000,
    );
  };
  const calls: RequestedToolCall[] = [];
  let text = '';
  try {
    const stream = await withRetries(
      async () => {
        watch();
        try {
          return await client.chat.completions.create({ ...request, stream: true }, { signal: controller.signal });
        } finally {
          clearTimeout(watchdog);
        }
      },
      { ...options.retry, signal: controller.signal },
    );
    watch();
    for await (const chunk of stream) {
      watch();
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        text += delta.content;
        await options.onText(delta.content);
      }
      for (const fragment of delta.tool_calls ?? []) {
        const call = (calls[fragment.index] ??= { id: '', name: '', arguments: '' });
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      }
    }
    // openai's stream ends its iteration quietly when aborted: a cut stream is not a whole answer.
    controller.signal.throwIfAborted();
  } catch (error) {
    controller.signal.throwIfAborted();
    throw error;
  } finally {
    clearTimeout(watchdog);
    options.signal.removeEventListener('abort', stop);
  }
  // Sparse indexes (a provider that numbers calls from 1) leave holes: drop them.
  return { text, toolCalls: calls.filter((call) => call !== undefined) };
}
