import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ProviderSilent } from './provider-errors.ts';

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
  /** Stops the request (the chat was deleted meanwhile). */
  signal: AbortSignal;
}

/**
 * One streamed chat completion: text deltas go to `onText` as they come, tool-call fragments are
 * joined by their index. The client's own timeout ends at the response headers, so a watchdog
 * aborts a stream that goes quiet.
 */
export async function streamCompletion(
  client: OpenAI,
  request: Omit<ChatCompletionCreateParamsStreaming, 'stream'>,
  options: StreamOptions,
): Promise<Completion> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  let silent = false;
  let watchdog: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      silent = true;
      controller.abort();
    }, options.idleTimeoutSeconds * 1000);
  };
  const calls: RequestedToolCall[] = [];
  let text = '';
  try {
    watch();
    const stream = await client.chat.completions.create({ ...request, stream: true }, { signal: controller.signal });
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
  } catch (error) {
    if (silent) throw new ProviderSilent(options.idleTimeoutSeconds);
    throw error;
  } finally {
    clearTimeout(watchdog);
    options.signal.removeEventListener('abort', stop);
  }
  // Sparse indexes (a provider that numbers calls from 1) leave holes: drop them.
  return { text, toolCalls: calls.filter((call) => call !== undefined) };
}
