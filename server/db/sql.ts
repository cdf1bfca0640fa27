import { createHash } from 'node:crypto';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { PageRequest } from '../http/pagination.ts';

/** A statement with `?` placeholders (never inside literals) and its values. */
export interface Statement {
  text: string;
  params: unknown[];
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
    return (await connection.query({ name, text, values: statement.params })).rows as Row[];
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

/**
 * Runs SQL on `em`'s connection (inside its transaction, if any) and returns the rows. Values are
 * bound parameters: the ORM's own `execute` would inline them into the text.
 */
export async function sql<Row>(em: EntityManager, text: string, params: unknown[] = []): Promise<Row[]> {
  const { client } = em.getTransactionContext<Knex.Transaction>() ?? em.getKnex();
  const connection = (await client.acquireConnection()) as Queryable;
  try {
    return await runStatement<Row>(connection, { text, params });
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A filtered listing: `from` holds the FROM/JOIN/WHERE part of the page, with `params`. */
export interface ListingQuery {
  select: string;
  from: string;
  orderBy: string;
  params: unknown[];
  /** A cheaper statement for the total, when one exists (a maintained count, fewer joins). */
  count?: Statement;
}

/**
 * One statement for a page and its total: a single round trip to PostgreSQL, which is what a
 * small request spends most of its time on. The page comes back as one JSON array (in the order
 * of its sorted subquery), so columns must be JSON-friendly: numerics as text.
 */
export function listingStatement(query: ListingQuery, page: PageRequest): Statement {
  const count = query.count ?? { text: `select count(*) from ${query.from}`, params: query.params };
  return {
    text: `select (${count.text}) as total, coalesce((select json_agg(page) from (
        select ${query.select} from ${query.from} order by ${query.orderBy} limit ? offset ?
      ) page), '[]'::json) as rows`,
    params: [...count.params, ...query.params, page.perPage, (page.page - 1) * page.perPage],
  };
}

/** One page of rows and the total. */
export async function pagedRows<Row>(
  em: EntityManager,
  query: ListingQuery,
  page: PageRequest,
): Promise<{ rows: Row[]; total: number }> {
  const statement = listingStatement(query, page);
  const [result] = await sql<{ total: string; rows: Row[] }>(em, statement.text, statement.params);
  return { rows: result?.rows ?? [], total: Number(result?.total ?? 0) };
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
