import { Migration } from '@mikro-orm/migrations';

/**
 * AI assistant chats: a user's conversations, their messages in the order written, and the tool
 * calls each assistant reply made. Deleting a chat takes its messages and tool calls with it; a
 * job that is still writing a reply finds its message gone and stops.
 */
export class Migration20261127000000_chats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chats (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        title text not null check (char_length(title) between 1 and 255),
        error text check (char_length(error) <= 500),
        message_count integer not null default 0 check (message_count between 0 and 1000),
        last_message_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    // The list: a user's chats, newest activity first.
    this.addSql(`create index chats_user_activity_idx on chats (user_id, updated_at desc, id desc)`);
    this.addSql(`
      create table chat_messages (
        id uuid primary key,
        chat_id uuid not null references chats (id) on delete cascade,
        -- Written order: two messages of one statement time still have one order.
        seq bigint generated always as identity,
        kind text not null check (kind in ('user_message', 'assistant_message')),
        content text not null default '' check (char_length(content) <= 100000),
        model text check (char_length(model) <= 128),
        status text not null check (status in ('pending', 'complete', 'failed')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index chat_messages_chat_idx on chat_messages (chat_id, seq)`);
    this.addSql(`
      create table chat_tool_calls (
        id uuid primary key,
        message_id uuid not null references chat_messages (id) on delete cascade,
        seq bigint generated always as identity,
        provider_id text not null check (char_length(provider_id) <= 255),
        function_name text not null check (char_length(function_name) <= 64),
        function_arguments jsonb not null,
        function_result jsonb not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create index chat_tool_calls_message_idx on chat_tool_calls (message_id, seq)`);
  }
}
