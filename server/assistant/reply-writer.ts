import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import type { AiProviderConfig } from '../config.ts';
import { answerJson } from '../core/exact-json.ts';
import { plannedPerCall, runStatement, type Queryable } from '../core/sql.ts';
import { streamCompletion, type RequestedToolCall } from './completion-stream.ts';
import { conversationMessages, type HistoryMessage } from './conversation.ts';
import { failureSentence, ReplyTimedOut } from './provider-errors.ts';
import type { ToolContext } from './tools/assistant-tool.ts';
import { runTool, toolDefinitions } from './tools/tool-runner.ts';

/** Model turns that may ask for tools; the turn after the last must answer in words. */
export const MAX_TOOL_ROUNDS = 6;
/** Tool calls run per turn; more are answered with an error (6 x 10 stays within a message's 64). */
const MAX_CALLS_PER_ROUND = 10;
/** A reply is cut here (the contract's bound of a message's content). */
const MAX_CONTENT = 100_000;
/** Streamed text reaches the database at most this often: a polling client sees it grow. */
const FLUSH_MS = 250;

/** The reply's message or its chat was deleted while it was being written. */
class ReplyGone extends Error {}

/** The worker is stopping: the reply was left pending, for its job to write again. */
export class WorkerStopping extends Error {
  constructor() {
    super('the worker is stopping');
  }
}

export interface ReplyDependencies {
  db: Queryable;
  client: OpenAI;
  provider: AiProviderConfig;
  log: Logger;
  /** Aborted when the worker stops: requests and waits end at once (`WorkerStopping`). */
  signal: AbortSignal;
}

interface PendingReply {
  id: string;
  seq: string;
  model: string | null;
  family_id: string;
  currency: string;
}

const run = <Row>(db: Queryable, text: string, params: unknown[]) => runStatement<Row>(db, { text, params });

/** The chat's oldest reply still to write, with what its tools need. */
async function nextPendingReply(db: Queryable, chatId: string): Promise<PendingReply | undefined> {
  const [reply] = await run<PendingReply>(
    db,
    `select m.id, m.seq::text as seq, m.model, u.family_id, trim(f.currency) as currency
     from chat_messages m join chats c on c.id = m.chat_id join users u on u.id = c.user_id
     join families f on f.id = u.family_id
     where m.chat_id = ?::uuid and m.kind = 'assistant_message' and m.status = 'pending'
     order by m.seq limit 1`,
    [chatId],
  );
  return reply;
}

/** The conversation before a reply: user messages and the replies that were completed. */
async function historyBefore(db: Queryable, chatId: string, seq: string): Promise<HistoryMessage[]> {
  return run<HistoryMessage>(
    db,
    `select case kind when 'user_message' then 'user' else 'assistant' end as role, content
     from chat_messages
     where chat_id = ?::uuid and seq < ?::bigint and (kind = 'user_message' or (status = 'complete' and content <> ''))
     order by seq`,
    [chatId, seq],
  );
}

/** Writes text of a pending reply; a reply that is gone stops the work. */
async function saveText(db: Queryable, messageId: string, content: string): Promise<void> {
  const rows = await run(
    db,
    `update chat_messages set content = ?, updated_at = now() where id = ?::uuid and status = 'pending' returning id`,
    [content, messageId],
  );
  if (!rows.length) throw new ReplyGone();
}

/** The most JSON kept of a tool call's arguments or result: a chat must stay readable in one GET. */
const STORED_TOOL_JSON_BYTES = 65_536;

/** `value` as stored JSON, or a note of its size when it is too large to keep. */
function storedJson(value: Record<string, unknown>, what: string): string {
  const json = answerJson(value);
  const bytes = Buffer.byteLength(json);
  if (bytes <= STORED_TOOL_JSON_BYTES) return json;
  return JSON.stringify({
    omitted: `The ${what} took ${bytes} bytes; at most ${STORED_TOOL_JSON_BYTES} are kept.`,
    bytes,
  });
}

async function saveToolCall(
  db: Queryable,
  messageId: string,
  call: RequestedToolCall,
  outcome: { arguments: Record<string, unknown>; result: Record<string, unknown> },
): Promise<void> {
  const rows = await run(
    db,
    `insert into chat_tool_calls (id, message_id, provider_id, function_name, function_arguments, function_result)
     select gen_random_uuid(), m.id, ?, ?, ?::jsonb, ?::jsonb from chat_messages m
     where m.id = ?::uuid and m.status = 'pending'
     returning id`,
    [
      call.id.slice(0, 255),
      call.name.slice(0, 64),
      storedJson(outcome.arguments, 'arguments'),
      storedJson(outcome.result, 'result'),
      messageId,
    ],
  );
  if (!rows.length) throw new ReplyGone();
}

/** Ends a reply `complete` (or `failed` with the chat's error) and marks the chat active. */
async function finishReply(db: Queryable, messageId: string, content: string, error: string | null): Promise<void> {
  await run(
    db,
    `with reply as (
       update chat_messages set content = ?, status = ?, updated_at = now()
       where id = ?::uuid and status = 'pending' returning chat_id
     )
     update chats set error = ?, updated_at = now() where id = (select chat_id from reply)`,
    [content, error === null ? 'complete' : 'failed', messageId, error],
  );
}

/**
 * Writes one reply: the conversation goes to the model with the tools; each tool call the model
 * asks for runs over the family's data and is stored before its result goes back; the text
 * streams into the message as it comes. Provider failures, and a reply that outlasts
 * AI_REPLY_TIMEOUT_SECONDS, end it `failed` with a sentence on the chat (keeping the text so far);
 * database failures and the worker stopping propagate (the job runs again and finds the reply
 * still pending).
 */
async function writeReply(deps: ReplyDependencies, chatId: string, reply: PendingReply): Promise<void> {
  const { db, client, provider } = deps;
  if (deps.signal.aborted) throw new WorkerStopping();
  const model = reply.model ?? provider.model;
  const today = new Date().toISOString().slice(0, 10);
  const toolContext: ToolContext = {
    db: plannedPerCall(db),
    familyId: reply.family_id,
    currency: reply.currency,
    today,
  };
  const messages: ChatCompletionMessageParam[] = conversationMessages(
    { currency: reply.currency, today },
    await historyBefore(db, chatId, reply.seq),
    provider.contextTokens,
  );
  const tools = toolDefinitions() as ChatCompletionTool[];
  // A run cut short (a worker that stopped or died) left what it had written: this run writes it all again.
  await run(
    db,
    `with calls as (delete from chat_tool_calls where message_id = ?::uuid)
     update chat_messages set content = '', updated_at = now() where id = ?::uuid`,
    [reply.id, reply.id],
  );
  // One signal ends every request and wait of the reply: at its deadline, or when the worker stops.
  const cut = new AbortController();
  const deadlineAt = Date.now() + provider.replyTimeoutSeconds * 1000;
  const deadline = setTimeout(
    () => cut.abort(new ReplyTimedOut(provider.replyTimeoutSeconds)),
    provider.replyTimeoutSeconds * 1000,
  );
  const onStop = () => cut.abort(new WorkerStopping());
  deps.signal.addEventListener('abort', onStop, { once: true });
  const retry = {
    maxRetries: provider.maxRetries,
    maxWaitMs: () => Math.min(provider.retryAfterMaxSeconds * 1000, deadlineAt - Date.now()),
  };
  let content = '';
  let flushedAt = Date.now();
  const onText = async (delta: string) => {
    content = (content + delta).slice(0, MAX_CONTENT);
    if (Date.now() - flushedAt < FLUSH_MS) return;
    flushedAt = Date.now();
    await saveText(db, reply.id, content);
  };

  try {
    for (let round = 0; ; round++) {
      const mayUseTools = round < MAX_TOOL_ROUNDS;
      const completion = await streamCompletion(
        client,
        { model, messages, tools, tool_choice: mayUseTools ? 'auto' : 'none' },
        { onText, idleTimeoutSeconds: provider.timeoutSeconds, signal: cut.signal, retry },
      );
      if (!completion.toolCalls.length || !mayUseTools) break;
      const calls = completion.toolCalls.map((call, index) => ({ ...call, id: call.id || `call_${round}_${index}` }));
      messages.push({
        role: 'assistant',
        content: completion.text || null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      });
      for (const [index, call] of calls.entries()) {
        let result: Record<string, unknown> = {
          error: 'too_many_calls',
          message: `At most ${MAX_CALLS_PER_ROUND} tool calls are run per turn; ask again for what is still missing.`,
        };
        if (index < MAX_CALLS_PER_ROUND) {
          const outcome = await runTool(toolContext, call.name, call.arguments);
          await saveToolCall(db, reply.id, call, outcome);
          result = outcome.result;
        }
        // Every call the model made needs an answer, or the provider refuses the next request.
        messages.push({ role: 'tool', tool_call_id: call.id, content: answerJson(result) });
      }
      if (content && !content.endsWith('\n')) await onText('\n\n');
    }
    await finishReply(db, reply.id, content.trim(), null);
  } catch (error) {
    if (error instanceof ReplyGone) {
      deps.log.info({ chatId, messageId: reply.id }, 'assistant reply dropped: its chat was deleted');
      return;
    }
    if (error instanceof WorkerStopping || isDatabaseError(error)) throw error;
    deps.log.warn({ chatId, messageId: reply.id, model, err: error }, 'assistant reply failed');
    await finishReply(db, reply.id, content.trim(), failureSentence(error, model));
  } finally {
    clearTimeout(deadline);
    deps.signal.removeEventListener('abort', onStop);
  }
}

/** A statement that failed (runStatement names it on the error): ours to retry, not the provider's. */
function isDatabaseError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'statement' in error;
}

/** Writes every pending reply of a chat, oldest first (messages sent meanwhile included). */
export async function writePendingReplies(deps: ReplyDependencies, chatId: string): Promise<number> {
  let written = 0;
  for (let reply = await nextPendingReply(deps.db, chatId); reply; reply = await nextPendingReply(deps.db, chatId)) {
    await writeReply(deps, chatId, reply);
    written += 1;
  }
  return written;
}
