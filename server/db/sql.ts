import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { PageRequest } from '../http/pagination.ts';

/**
 * Runs SQL with `?` placeholders on `em`'s connection (inside its transaction, if any) and returns
 * the rows. Values travel as bound parameters: the ORM's own `execute` inlines them into the text.
 */
export async function sql<Row>(em: EntityManager, text: string, params: unknown[] = []): Promise<Row[]> {
  const query = em.getKnex().raw(text, params as Knex.RawBinding[]);
  const transaction = em.getTransactionContext<Knex.Transaction>();
  if (transaction) query.transacting(transaction);
  const result: { rows: Row[] } = await query;
  return result.rows;
}

/** A statement with `?` placeholders. */
export interface Statement {
  text: string;
  params: unknown[];
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
