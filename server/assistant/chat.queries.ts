import { pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { NotFound } from '../core/errors.ts';
import { paginationMeta, type PageRequest } from '../core/pagination.ts';
import { JsonText } from '../core/exact-json.ts';

export interface ChatRow {
  id: string;
  title: string;
  error: string | null;
  last_message_at: Date | string | null;
  message_count: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A tool call as the message statement builds it: its arguments and result as their stored JSON text. */
interface StoredToolCall {
  id: string;
  type: 'function';
  provider_id: string;
  function_name: string;
  function_arguments: string;
  function_result: string;
  created_at: string;
}

/** A message as the message statement (MESSAGE_JSON) builds it: in the API's shape but for its tool calls. */
export interface StoredMessage {
  id: string;
  chat_id: string;
  type: 'user_message' | 'assistant_message';
  role: 'user' | 'assistant';
  content: string;
  model: string | null;
  status: 'pending' | 'complete' | 'failed';
  tool_calls: StoredToolCall[];
  created_at: string;
  updated_at: string;
}

/**
 * A message for an answer. A tool call's arguments and result go out as the text PostgreSQL keeps:
 * parsed here, a figure past 2^53 in them would turn into a neighbour (core/exact-json.ts).
 */
export function messageAnswer(message: StoredMessage) {
  return {
    ...message,
    tool_calls: message.tool_calls.map((call) => ({
      ...call,
      function_arguments: new JsonText(call.function_arguments),
      function_result: new JsonText(call.function_result),
    })),
  };
}

export type MessageAnswer = ReturnType<typeof messageAnswer>;

const SELECT = 'c.id, c.title, c.error, c.last_message_at, c.message_count, c.created_at, c.updated_at';

/** A timestamptz inside JSON built by PostgreSQL, written the way isoTimestamp writes it. */
const jsonTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One message with its tool calls, in the API's shape; `m` is the message row. */
export const MESSAGE_JSON = `json_build_object(
  'id', m.id, 'chat_id', m.chat_id, 'type', m.kind,
  'role', case m.kind when 'user_message' then 'user' else 'assistant' end,
  'content', m.content, 'model', m.model, 'status', m.status,
  'tool_calls', coalesce((
    select json_agg(json_build_object('id', t.id, 'type', 'function', 'provider_id', t.provider_id,
      'function_name', t.function_name, 'function_arguments', t.function_arguments::text,
      'function_result', t.function_result::text, 'created_at', ${jsonTime('t.created_at')}) order by t.seq)
    from chat_tool_calls t where t.message_id = m.id), '[]'::json),
  'created_at', ${jsonTime('m.created_at')}, 'updated_at', ${jsonTime('m.updated_at')})`;

/** The API's chat object (summary form). */
export function chatView(row: ChatRow) {
  return {
    id: row.id,
    title: row.title,
    error: row.error,
    last_message_at: row.last_message_at === null ? null : isoTimestamp(row.last_message_at),
    message_count: row.message_count,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** The user's chats, newest activity first. */
export function searchChats(db: SqlTarget, userId: string, page: PageRequest) {
  return pagedRows<ChatRow>(
    db,
    {
      select: SELECT,
      from: 'chats c where c.user_id = ?',
      orderBy: 'c.updated_at desc, c.id desc',
      params: [userId],
    },
    page,
  );
}

/** How many messages a chat shows a page when the client does not say (the reference's page). */
export const MESSAGES_PER_PAGE = 50;

/**
 * One chat of the user with one page of its messages (oldest first) and their tool calls, and the
 * page's `meta`; 404 also for another user's chat.
 */
export async function findChatDetail(
  db: SqlTarget,
  userId: string,
  id: string,
  page: PageRequest = { page: 1, perPage: MESSAGES_PER_PAGE },
) {
  const [row] = await sql<ChatRow & { messages: StoredMessage[]; total: number }>(
    db,
    `select ${SELECT},
       coalesce((select json_agg(${MESSAGE_JSON} order by m.seq)
         from (select * from chat_messages where chat_id = c.id order by seq limit ? offset ?) m), '[]'::json) as messages,
       (select count(*)::int from chat_messages where chat_id = c.id) as total
     from chats c where c.id = ? and c.user_id = ?`,
    [page.perPage, (page.page - 1) * page.perPage, id, userId],
  );
  if (!row) throw NotFound.entity('Chat');
  return {
    data: { ...chatView(row), messages: row.messages.map(messageAnswer) },
    meta: paginationMeta(page, row.total),
  };
}
