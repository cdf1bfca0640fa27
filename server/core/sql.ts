import { createHash } from 'node:crypto';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { PageRequest } from './pagination.ts';

/** A statement with `?` placeholders (never inside literals) and its values. */
export interface Statement {
  text: string;
  params: unknown[];
  /**
   * Plan for these values on every call instead of keeping a plan per connection: for statements
   * whose best plan depends on the values (how many rows a search word matches decides between
   * walking the newest rows and reading a trigram index).
   */
  planPerCall?: boolean;
}

/** What runs a statement: a `pg` client or pool. */
export interface Queryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface Prepared {
  name: string;
  text: string;
  count: number;
}

const prepared = new Map<string, Prepared>();

/** `?` -> `$1..$n`, and a stable statement name derived from the text. */
function prepare(text: string): Prepared {
  let found = prepared.get(text);
  if (!found) {
    let count = 0;
    const positional = text.replace(/\?/g, () => `$${++count}`);
    const name = `q_${createHash('sha1').update(positional).digest('base64url').slice(0, 24)}`;
    found = { name, text: positional, count };
    prepared.set(text, found);
  }
  return found;
}

/**
 * Runs a statement as a named prepared statement: each connection parses and plans it once, then
 * only binds values (planning the listing's joins cost more than running them: bench/README.md).
 * Lists of ids are bound as one array parameter (`= any(?)`), so the set of texts stays small.
 */
export async function runStatement<Row>(connection: Queryable, statement: Statement): Promise<Row[]> {
  const { name, text, count } = prepare(statement.text);
  if (count !== statement.params.length) {
    throw new Error(`statement has ${count} placeholders but ${statement.params.length} values: ${statement.text}`);
  }
  try {
    const query = statement.planPerCall ? plannedPerCall(connection) : connection;
    return (await query.query({ name, text, values: statement.params })).rows as Row[];
  } catch (error) {
    // Logs name the statement (its text is in the code) instead of quoting SQL and values.
    if (error && typeof error === 'object') Object.assign(error, { statement: name });
    throw error;
  }
}

/**
 * The same connection with every statement planned for its own values (unnamed, never cached):
 * for reports over ranges that vary widely, where PostgreSQL's generic plan of a prepared
 * statement can be ten times slower (bench/README.md: a month's spending by category took
 * 25 ms planned per call, 250 ms once the generic plan took over).
 */
export function plannedPerCall(connection: Queryable): Queryable {
  return { query: ({ text, values }) => connection.query({ text, values } as Parameters<Queryable['query']>[0]) };
}

/** Where statements can run: a request's EntityManager (and its transaction) or a job's client. */
export type SqlTarget = EntityManager | Queryable;

/** Runs `work` on the target's connection: an EntityManager's (inside its transaction, if any), or a client. */
async function withConnection<T>(target: SqlTarget, work: (connection: Queryable) => Promise<T>): Promise<T> {
  if (!('getTransactionContext' in target)) return work(target);
  const { client } = target.getTransactionContext<Knex.Transaction>() ?? target.getKnex();
  const connection = (await client.acquireConnection()) as Queryable;
  try {
    return await work(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Runs SQL on the target's connection (an EntityManager's inside its transaction, if any) and
 * returns the rows. Values are bound parameters: the ORM's own `execute` would inline them into the text.
 */
export async function sql<Row>(target: SqlTarget, text: string, params: unknown[] = []): Promise<Row[]> {
  return withConnection(target, (connection) => runStatement<Row>(connection, { text, params }));
}

/** Statements with `?` placeholders on one connection: what a feature is given to send SQL. */
export type Sql = <Row = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<Row[]>;

/** The one way requests and jobs alike send SQL: named prepared statements through runStatement. */
export function sqlOn(target: SqlTarget): Sql {
  return (text, params = []) => sql(target, text, params);
}

/**
 * Runs `work` in one transaction on a job's connection: committed when it returns, rolled back
 * when it throws (and the error passed on). With `statementTimeoutMs`, any statement of it that
 * runs (or waits for a lock) longer is cancelled: SQLSTATE 57014, see isQueryCanceled.
 */
export async function inTransaction<T>(
  connection: Queryable,
  work: (run: Sql) => Promise<T>,
  options: { statementTimeoutMs?: number } = {},
): Promise<T> {
  const plain = (text: string) =>
    connection.query({ text, values: [] } as unknown as Parameters<Queryable['query']>[0]);
  await plain('begin');
  try {
    const run = sqlOn(connection);
    if (options.statementTimeoutMs !== undefined) {
      await run(`select set_config('statement_timeout', ?, true)`, [`${options.statementTimeoutMs}ms`]);
    }
    const result = await work(run);
    await plain('commit');
    return result;
  } catch (error) {
    await plain('rollback');
    throw error;
  }
}

/** Whether PostgreSQL cancelled a statement: it ran past statement_timeout (or was cancelled by hand). */
export function isQueryCanceled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}

/** A filtered listing: `from` holds the FROM/JOIN/WHERE part of the page, with `params`. */
export interface ListingQuery {
  select: string;
  from: string;
  orderBy: string;
  params: unknown[];
  /** A cheaper statement for the exact total, when one exists (a maintained count, fewer joins). */
  count?: Statement;
  /**
   * Set when no exact total is cheap: the matching rows are found by `matches` (FROM/WHERE over
   * only the tables the filters read, with `params`) in `orderBy`, identified by `key`, and counted
   * only up to COUNTED_PAGES pages from the one asked for; the page's columns are then read for its
   * keys alone through `joins` (the FROM/JOIN part of `from`, without its WHERE).
   */
  bounded?: { key: string; matches: string; joins: string };
  /** Plan for the values of each call (see Statement.planPerCall). */
  planPerCall?: boolean;
}

/**
 * How far a bounded total counts: the page asked for and the nine after it. A search engine's
 * "more than N" instead of a count of every match, which for a common word costs as much as
 * reading them all (bench/README.md); a client learns it from `meta.total_count_exact`.
 */
export const COUNTED_PAGES = 10;

/** A listing's page and its total; `exact` is false when the total stopped at its bound. */
export interface Page<Row> {
  rows: Row[];
  total: number;
  exact: boolean;
}

/**
 * One statement for a page and its total: a single round trip to PostgreSQL, which is what a
 * small request spends most of its time on. The page comes back as one JSON array (in the order
 * of its sorted subquery), so columns must be JSON-friendly: numerics as text.
 *
 * The first page's LIMIT is written into the text: with LIMIT and OFFSET as parameters PostgreSQL
 * assumes a generic plan reads 10% of the table and plans every call anew (~0.9 ms, more than
 * running the page), while with them written in it keeps one plan per connection. Later pages
 * (unbounded offsets, fewer calls) pass them as parameters so the set of texts stays small.
 */
export function listingStatement(query: ListingQuery, page: PageRequest): Statement & { bound?: number } {
  const params: unknown[] = [];
  const first = page.page === 1;
  const offset = (page.page - 1) * page.perPage;
  /** An integer of the statement: written in on the first page, else a parameter. */
  const int = (value: number) => {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a row count: ${value}`);
    if (first) return String(value);
    params.push(value);
    return '?';
  };
  if (query.bounded) {
    const { key, matches, joins } = query.bounded;
    const bound = offset + COUNTED_PAGES * page.perPage;
    params.push(...query.params);
    const text = `with hits as materialized (
        select ${key} as key, row_number() over (order by ${query.orderBy}) as n
        from ${matches} order by ${query.orderBy} limit ${int(bound + 1)}
      )
      select (select count(*) from hits) as total, coalesce((select json_agg(page) from (
        select ${query.select} from ${joins} join hits h on h.key = ${key}
        where h.n > ${int(offset)} and h.n <= ${int(offset + page.perPage)} order by h.n
      ) page), '[]'::json) as rows`;
    return { text, params, bound, planPerCall: query.planPerCall };
  }
  const count = query.count ?? { text: `select count(*) from ${query.from}`, params: query.params };
  params.push(...count.params, ...query.params);
  const text = `select (${count.text}) as total, coalesce((select json_agg(page) from (
        select ${query.select} from ${query.from} order by ${query.orderBy}
        limit ${int(page.perPage)}${first ? '' : ` offset ${int(offset)}`}
      ) page), '[]'::json) as rows`;
  return { text, params, planPerCall: query.planPerCall };
}

/** Runs a listing's statement (listingStatement) and reads its page and total. */
export async function readListing<Row>(
  connection: Queryable,
  query: ListingQuery,
  page: PageRequest,
): Promise<Page<Row>> {
  const statement = listingStatement(query, page);
  const [result] = await runStatement<{ total: string; rows: Row[] }>(connection, statement);
  const counted = Number(result?.total ?? 0);
  const exact = statement.bound === undefined || counted <= statement.bound;
  return { rows: result?.rows ?? [], total: exact ? counted : statement.bound!, exact };
}

/** One page of rows and the total, on the target's connection. */
export async function pagedRows<Row>(target: SqlTarget, query: ListingQuery, page: PageRequest): Promise<Page<Row>> {
  return withConnection(target, (connection) => readListing<Row>(connection, query, page));
}

/** A value for a LIKE pattern that matches `text` literally anywhere. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** The `start_date`/`end_date` filter of a list (both inclusive) as conditions on `column`. */
export function dateRange(column: string, filters: { start_date?: string; end_date?: string }): Statement[] {
  const conditions: Statement[] = [];
  if (filters.start_date) conditions.push({ text: `${column} >= ?`, params: [filters.start_date] });
  if (filters.end_date) conditions.push({ text: `${column} <= ?`, params: [filters.end_date] });
  return conditions;
}
