/**
 * The limit of the balances bench: a bare node:http server with a `pg` pool that answers the balance
 * sheet and the daily balances list with the service's own code below HTTP (balanceSheet, and
 * balanceListing + readListing + balanceView). No authentication, rate limiting, validation or
 * framework. Started by balances.bench.ts; env: DATABASE_URL, DB_POOL_SIZE, FAMILY_ID.
 */
import pg from 'pg';
import { balanceListing } from '../server/balances/balance.queries.ts';
import { balanceSheet, type BalanceSheetPeriod } from '../server/balances/balance-sheet.ts';
import { balanceView, type BalanceRow } from '../server/balances/balance.view.ts';
import { pageRequest, paginationMeta } from '../server/core/pagination.ts';
import { readListing } from '../server/core/sql.ts';
import { SESSION_OPTIONS } from '../server/db/session-options.ts';
import './query-counter.ts';
import { serveChild } from './serve-child.ts';

const familyId = process.env.FAMILY_ID!;
// As the ORM's driver parses them: dates and timestamps stay text.
const types = new pg.TypeOverrides();
for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, (text: string) => text);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL!,
  max: Number(process.env.DB_POOL_SIZE ?? 10),
  types,
  options: SESSION_OPTIONS,
});

function send(response: import('node:http').ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) }); // prettier-ignore
  response.end(json);
}

serveChild(
  (request, response) =>
    (async () => {
      const url = new URL(request.url ?? '/', 'http://limit');
      if (url.pathname === '/api/v1/balance_sheet') {
        const period = (url.searchParams.get('period') ?? '1M') as BalanceSheetPeriod;
        return send(response, 200, { data: await balanceSheet(pool, familyId, period) });
      }
      if (url.pathname === '/api/v1/balances') {
        const query = Object.fromEntries(url.searchParams);
        const page = pageRequest({ page: Number(query.page ?? 1), per_page: Number(query.per_page ?? 25) });
        const { rows, total, exact } = await readListing<BalanceRow>(pool, balanceListing(familyId, query), page);
        return send(response, 200, { data: rows.map(balanceView), meta: paginationMeta(page, total, exact) });
      }
      send(response, 404, { error: 'not_found', message: 'No such route' });
    })().catch((error: unknown) => {
      process.stderr.write(`balances limit: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`); // prettier-ignore
      send(response, 500, { error: 'internal_error', message: 'Internal error' });
    }),
  () => pool.end(),
);
