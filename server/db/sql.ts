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

/** A filtered listing: `from` holds the FROM/JOIN/WHERE part shared by the page and its count. */
export interface ListingQuery {
  select: string;
  from: string;
  orderBy: string;
  params: unknown[];
  /** A cheaper FROM/WHERE for the count when the page's joins do not change it. */
  countFrom?: string;
}

/** A statement with `?` placeholders. */
export interface Statement {
  text: string;
  params: unknown[];
}

/** The two statements of a listing page: its rows and its total count. */
export function listingStatements(query: ListingQuery, page: PageRequest): { rows: Statement; count: Statement } {
  return {
    rows: {
      text: `select ${query.select} from ${query.from} order by ${query.orderBy} limit ? offset ?`,
      params: [...query.params, page.perPage, (page.page - 1) * page.perPage],
    },
    count: { text: `select count(*) as total from ${query.countFrom ?? query.from}`, params: query.params },
  };
}

/** One page of rows and the total, the two queries run side by side. */
export async function pagedRows<Row>(em: EntityManager, query: ListingQuery, page: PageRequest): Promise<{ rows: Row[]; total: number }> {
  const statements = listingStatements(query, page);
  const [rows, counted] = await Promise.all([
    sql<Row>(em, statements.rows.text, statements.rows.params),
    sql<{ total: string }>(em, statements.count.text, statements.count.params),
  ]);
  return { rows, total: Number(counted[0]?.total ?? 0) };
}

/** A value for a LIKE pattern that matches `text` literally anywhere. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
