import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { queueJob } from '../core/job-queue.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { NotFound, ValidationFailed } from '../core/errors.ts';
import { MESSAGE_JSON, messageAnswer, type MessageAnswer, type StoredMessage } from './chat.queries.ts';
import { countMessage, type MessageLimit } from './message-limit.ts';

/** A chat holds at most this many messages (the contract's `maxItems` of a chat's messages). */
export const MESSAGES_PER_CHAT = 1000;

/** What the chat operations need beyond the request. */
export interface ChatSettings {
  /** The model of replies that name none. */
  defaultModel: string;
  limit: MessageLimit;
}

/** A chat's title from its first message: the first 80 characters, cut at a word when one ends near. */
export function titleFromMessage(message: string): string {
  const text = message.replace(/\s+/g, ' ').trim();
  if (text.length <= 80) return text;
  const cut = text.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${(space >= 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The user's chat, locked for the caller's transaction: messages of one chat are written one after the other. */
async function lockChat(tx: EntityManager, userId: string, chatId: string): Promise<{ message_count: number }> {
  const [chat] = await sql<{ message_count: number }>(
    tx,
    'select message_count from chats where id = ? and user_id = ? for update',
    [chatId, userId],
  );
  if (!chat) throw NotFound.entity('Chat');
  return chat;
}

/**
 * Queues the chat's `assistant_reply` job in the caller's transaction. One named queue per chat
 * runs its replies one after the other; the job key folds quick messages into one waiting job,
 * which writes every pending reply of the chat in order.
 */
async function queueReply(tx: EntityManager, chatId: string): Promise<void> {
  const key = `chat:${chatId}`;
  await queueJob(tx, 'assistant_reply', { chat_id: chatId }, { queueName: key, jobKey: key, maxAttempts: 3 });
}

/** A user message and the pending assistant message that will answer it; returns the user message. */
async function addExchange(
  tx: EntityManager,
  chatId: string,
  content: string,
  model: string | undefined,
  settings: ChatSettings,
): Promise<MessageAnswer> {
  const [message] = await sql<{ message: StoredMessage }>(
    tx,
    `with asked as (
       insert into chat_messages (id, chat_id, kind, content, model, status)
       values (?, ?, 'user_message', ?, ?, 'complete') returning *
     ), answer as (
       insert into chat_messages (id, chat_id, kind, model, status)
       select ?, chat_id, 'assistant_message', ?, 'pending' from asked
     ), chat as (
       update chats set message_count = message_count + 2, last_message_at = now(), updated_at = now(), error = null
       where id = ?
     )
     select ${MESSAGE_JSON} as message from asked m`,
    [randomUUID(), chatId, content, model ?? null, randomUUID(), model ?? settings.defaultModel, chatId],
  );
  await queueReply(tx, chatId);
  return messageAnswer(message!.message);
}

export interface NewChat {
  title?: string | undefined;
  message?: string | undefined;
  model?: string | undefined;
}

/** Starts a chat, with its first exchange when a message is sent; returns the chat's id. */
export function createChat(em: EntityManager, userId: string, input: NewChat, settings: ChatSettings): Promise<string> {
  return writeUnit(em, async (tx) => {
    const id = randomUUID();
    // The contract requires a title or a message.
    const title = input.title ?? titleFromMessage(input.message!);
    await sql(tx, 'insert into chats (id, user_id, title) values (?, ?, ?)', [id, userId, title]);
    if (input.message !== undefined) {
      await countMessage(tx, userId, settings.limit);
      await addExchange(tx, id, input.message, input.model, settings);
    }
    return id;
  });
}

export async function renameChat(em: EntityManager, userId: string, chatId: string, title: string): Promise<void> {
  const rows = await sql(
    em,
    'update chats set title = ?, updated_at = now() where id = ? and user_id = ? returning id',
    [title, chatId, userId],
  );
  if (!rows.length) throw NotFound.entity('Chat');
}

/** Deletes a chat with its messages and tool calls; a reply being written stops at its next step. */
export async function deleteChat(em: EntityManager, userId: string, chatId: string): Promise<void> {
  const rows = await sql(em, 'delete from chats where id = ? and user_id = ? returning id', [chatId, userId]);
  if (!rows.length) throw NotFound.entity('Chat');
}

/** Adds a user message and queues the reply to it. */
export function postMessage(
  em: EntityManager,
  userId: string,
  chatId: string,
  input: { content: string; model?: string | undefined },
  settings: ChatSettings,
): Promise<MessageAnswer> {
  return writeUnit(em, async (tx) => {
    const chat = await lockChat(tx, userId, chatId);
    if (chat.message_count + 2 > MESSAGES_PER_CHAT) {
      throw ValidationFailed.at(
        '/content',
        `This chat is full (${MESSAGES_PER_CHAT} messages); start a new chat to go on`,
      );
    }
    await countMessage(tx, userId, settings.limit);
    return addExchange(tx, chatId, input.content, input.model, settings);
  });
}

/**
 * Writes the chat's latest reply again: it loses its text and tool calls, becomes pending and is
 * queued. Returns the message's id.
 */
export function retryReply(em: EntityManager, userId: string, chatId: string, settings: ChatSettings): Promise<string> {
  return writeUnit(em, async (tx) => {
    await lockChat(tx, userId, chatId);
    const [latest] = await sql<{ id: string; status: string }>(
      tx,
      `select id, status from chat_messages where chat_id = ? and kind = 'assistant_message' order by seq desc limit 1`,
      [chatId],
    );
    if (!latest) throw new ValidationFailed([{ message: 'No assistant message to retry' }]);
    if (latest.status === 'pending') {
      throw new ValidationFailed([{ message: 'The latest reply is still being written; retry it once it has ended' }]);
    }
    await countMessage(tx, userId, settings.limit);
    await sql(tx, 'delete from chat_tool_calls where message_id = ?', [latest.id]);
    await sql(
      tx,
      `update chat_messages set content = '', status = 'pending', model = coalesce(model, ?), updated_at = now()
       where id = ?`,
      [settings.defaultModel, latest.id],
    );
    await sql(tx, 'update chats set error = null, updated_at = now() where id = ?', [chatId]);
    await queueReply(tx, chatId);
    return latest.id;
  });
}
