/**
 * The limit: a bare node:http server with a `pg` pool that serves the four benchmarked routes with
 * the service's SQL (built by the exported transactionListing + listingStatement and
 * transactionByIdStatement, run as the same named prepared statements by runStatement) and the service's JSON (transactionView, paginationMeta). No
 * authentication, rate limiting, validation or framework: what is left is the database work and
 * the JSON. A create sends the service's one create statement and reads the result back with the
 * service's select. Started by api.bench.ts as
 * `node --import tsx bench/limit-server.ts`; env: DATABASE_URL, DB_POOL_SIZE, FAMILY_ID.
 */
import http from 'node:http';
import pino from 'pino';
import { readListing, runStatement } from '../server/core/sql.ts';
import { openStatementPool } from '../server/db/statement-pool.ts';
import { pageRequest, paginationMeta, type PageRequest } from '../server/core/pagination.ts';
import type { RequestBody } from '../server/http/contract.ts';
import { signedAmount } from '../server/core/money/signed-amount.ts';
import { transactionCreateStatement } from '../server/transactions/transaction.create-statement.ts';
import {
  transactionByIdStatement,
  transactionListing,
  type TransactionFilters,
} from '../server/transactions/transaction.queries.ts';
import { transactionView, type TransactionRow } from '../server/transactions/transaction.view.ts';
import { oldSearchListing } from './old-search-listing.ts';
import './query-counter.ts';
import { serveChild } from './serve-child.ts';

const databaseUrl = process.env.DATABASE_URL!;
const poolSize = Number(process.env.DB_POOL_SIZE ?? 10);
const familyId = process.env.FAMILY_ID!;

// The service's own statement pool (server/db/statement-pool.ts): its session settings (JIT off) and
// result parsing, so both servers' statements get the same plans and transactionView the same rows.
const pool = openStatementPool(databaseUrl, poolSize, 10_000, pino({ level: 'warn' }));

class NotFound extends Error {}

/** As the service's pagedRows: one statement for the page and its total (readListing). */
function listPage(filters: TransactionFilters, page: PageRequest, listing = transactionListing) {
  return readListing<TransactionRow>(pool, listing(familyId, filters), page);
}

async function findTransaction(id: string): Promise<TransactionRow> {
  const [row] = await runStatement<TransactionRow>(pool, transactionByIdStatement(familyId, id));
  if (!row) throw new NotFound('Transaction not found');
  return row;
}

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
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  response.end(json);
}

async function readJson(request: http.IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** The create body as the contract types it. */
type CreateBody = RequestBody<'createTransaction'>;

/**
 * The service's create statement (transaction.create-statement.ts: lock the account, apply the
 * family's rules, write, queue its sync) for a create without category, merchant or tags.
 */
async function insertTransaction(input: CreateBody['transaction']): Promise<string> {
  const { statement, id } = transactionCreateStatement(
    {
      familyId,
      accountId: input.account_id,
      date: input.date,
      amount: signedAmount(input.amount, input.nature),
      currency: input.currency ?? null,
      name: (input.name ?? input.description ?? '').trim(),
      notes: input.notes ?? null,
    },
    { category: true, merchant: true, tags: true },
  );
  const [outcome] = await runStatement(pool, statement);
  if (!outcome) throw new NotFound('Account not found');
  return id;
}

const PREFIX = '/api/v1/transactions';
/** The same list with the search statement of before issue 14 (old-search-listing.ts). */
const OLD_SEARCH = `/old-search${PREFIX}`;

serveChild(
  (request, response) =>
    (async () => {
      const url = new URL(request.url ?? '/', 'http://limit');
      if ((url.pathname === PREFIX || url.pathname === OLD_SEARCH) && request.method === 'GET') {
        const query = listQuery(url.searchParams);
        const page = pageRequest(query);
        const listing = url.pathname === OLD_SEARCH ? oldSearchListing : transactionListing;
        const { rows, total, exact } = await listPage(query, page, listing);
        return send(response, 200, { data: rows.map(transactionView), meta: paginationMeta(page, total, exact) });
      }
      if (url.pathname === PREFIX && request.method === 'POST') {
        const body = (await readJson(request)) as CreateBody;
        const id = await insertTransaction(body.transaction);
        return send(response, 201, { data: transactionView(await findTransaction(id)) });
      }
      if (url.pathname.startsWith(`${PREFIX}/`) && request.method === 'GET') {
        const id = url.pathname.slice(PREFIX.length + 1);
        return send(response, 200, { data: transactionView(await findTransaction(id)) });
      }
      send(response, 404, { error: 'not_found', message: 'No such route' });
    })().catch((error: unknown) => {
      if (error instanceof NotFound) return send(response, 404, { error: 'not_found', message: error.message });
      process.stderr.write(
        `limit server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      send(response, 500, { error: 'internal_error', message: 'Internal error' });
    }),
  () => pool.end(),
);
