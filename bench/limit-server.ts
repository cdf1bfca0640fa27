/**
 * The limit: a bare node:http server with a `pg` pool that serves the four benchmarked routes with
 * the service's SQL (via its query functions, see pg-query-em.ts) and the service's JSON
 * (transactionView, paginationMeta). No authentication, no validation, no framework: what is left
 * is the database round trips and the JSON. Started by api.bench.ts with
 * `node --import tsx bench/limit-server.ts`; env: DATABASE_URL, DB_POOL_SIZE, FAMILY_ID, FAMILY_CURRENCY.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { NotFound } from '../server/http/errors.ts';
import { pageRequest, paginationMeta } from '../server/http/pagination.ts';
import { signedAmount, type Nature } from '../server/money/signed-amount.ts';
import { findTransaction, searchTransactions, type TransactionFilters } from '../server/transactions/transaction.queries.ts';
import { transactionView } from '../server/transactions/transaction.view.ts';
import { pgQueryEm } from './pg-query-em.ts';

const databaseUrl = process.env.DATABASE_URL!;
const poolSize = Number(process.env.DB_POOL_SIZE ?? 10);
const familyId = process.env.FAMILY_ID!;
const familyCurrency = process.env.FAMILY_CURRENCY ?? 'USD';

// The same result parsing as the ORM's driver (@mikro-orm/postgresql PostgreSqlConnection): dates
// and timestamps stay text, so both servers do the same work in transactionView.
const types = new pg.TypeOverrides();
for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, (text: string) => text);
const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, types });
const em = pgQueryEm(pool);

const LIST_ARRAYS = new Set(['account_ids', 'category_ids', 'merchant_ids', 'tag_ids']);
const NUMBERS = new Set(['page', 'per_page', 'min_amount', 'max_amount']);

/** The query string as the contract's coercion would hand it to the handler (no checks). */
function listQuery(search: URLSearchParams): TransactionFilters & { page?: number; per_page?: number } {
  const query: Record<string, unknown> = {};
  for (const [rawKey, value] of search) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    if (LIST_ARRAYS.has(key)) ((query[key] ??= []) as string[]).push(value);
    else query[key] = NUMBERS.has(key) ? Number(value) : value;
  }
  return query;
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  response.end(json);
}

async function readJson(request: http.IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

interface CreateBody {
  transaction: { account_id: string; date: string; amount: number; name?: string; description?: string; notes?: string | null;
    currency?: string; nature?: Nature };
}

/** The rows the service writes for a create without category, merchant or tags: detail + entry, one transaction. */
async function insertTransaction(input: CreateBody['transaction']): Promise<string> {
  const detailId = randomUUID();
  const entryId = randomUUID();
  const now = new Date();
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into transactions (id, category_id, merchant_id, kind, created_at, updated_at) values ($1, $2, $3, $4, $5, $6)`,
      [detailId, null, null, 'standard', now, now],
    );
    await client.query(
      `insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name, notes, excluded, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [entryId, familyId, input.account_id, 'Transaction', detailId, signedAmount(input.amount, input.nature),
        input.currency ?? familyCurrency, input.date, (input.name ?? input.description ?? '').trim(), input.notes ?? null, false, now, now],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return entryId;
}

const PREFIX = '/api/v1/transactions';

const server = http.createServer((request, response) => {
  void (async () => {
    const url = new URL(request.url ?? '/', 'http://limit');
    if (url.pathname === PREFIX && request.method === 'GET') {
      const query = listQuery(url.searchParams);
      const page = pageRequest(query);
      const { rows, total } = await searchTransactions(em, familyId, query, page);
      return send(response, 200, { data: rows.map(transactionView), meta: paginationMeta(page, total) });
    }
    if (url.pathname === PREFIX && request.method === 'POST') {
      const body = (await readJson(request)) as CreateBody;
      const id = await insertTransaction(body.transaction);
      return send(response, 201, { data: transactionView(await findTransaction(em, familyId, id)) });
    }
    if (url.pathname.startsWith(`${PREFIX}/`) && request.method === 'GET') {
      const id = url.pathname.slice(PREFIX.length + 1);
      return send(response, 200, { data: transactionView(await findTransaction(em, familyId, id)) });
    }
    send(response, 404, { error: 'not_found', message: 'No such route' });
  })().catch((error: unknown) => {
    if (error instanceof NotFound) return send(response, 404, { error: 'not_found', message: error.message });
    process.stderr.write(`limit server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    send(response, 500, { error: 'internal_error', message: 'Internal error' });
  });
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});

async function stop(): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
