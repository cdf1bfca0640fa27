import type { TestServer } from './test-server.ts';

/** Every table the API writes to. */
const TABLES = [
  'families',
  'users',
  'api_keys',
  'accounts',
  'categories',
  'merchants',
  'tags',
  'taggings',
  'securities',
  'entries',
  'transactions',
  'valuations',
  'trades',
  'devices',
  'oauth_tokens',
  'sso_identities',
  'sso_flows',
  'sso_codes',
  'holdings',
  'exchange_rates',
  'exchange_rate_replacements',
  'security_prices',
  'imports',
  'import_files',
  'import_rows',
  'rules',
  'chats',
  'chat_messages',
  'chat_tool_calls',
  'transfers',
  'transfer_rejections',
  'idempotency_keys',
];

/**
 * Row counts of every table the API writes to, the latest change of tags, entries, imports, chats, rates and prices, and the
 * number of queued jobs: equal before and after a refused request when it wrote nothing.
 */
export async function databaseSnapshot(server: TestServer) {
  const [row] = await server.query(
    `select ${TABLES.map((table) => `(select count(*) from ${table})::int as ${table}`).join(', ')}`,
  );
  const [latest] = await server.query(
    `select max(updated_at) as tags, (select max(updated_at) from entries) as entries,
       (select max(updated_at) from imports) as imports, (select max(updated_at) from chats) as chats,
       (select max(updated_at) from exchange_rates) as exchange_rates,
       (select max(updated_at) from security_prices) as security_prices from tags`,
  );
  const [jobs] = await server.query('select count(*)::int as queued from graphile_worker.jobs');
  return { ...row, latest, jobs };
}
