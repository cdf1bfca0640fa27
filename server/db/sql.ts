import type { EntityManager } from '@mikro-orm/postgresql';
import type { PageRequest } from '../http/pagination.ts';

/** Runs SQL with `?` placeholders through `em` (inside its transaction, if any) and returns the rows. */
export function sql<Row>(em: EntityManager, text: string, params: unknown[] = []): Promise<Row[]> {
  return em.execute<Row[]>(text, params, 'all');
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

/** One page of rows and the total, the two queries run side by side. */
export async function pagedRows<Row>(em: EntityManager, query: ListingQuery, page: PageRequest): Promise<{ rows: Row[]; total: number }> {
  const [rows, counted] = await Promise.all([
    sql<Row>(em, `select ${query.select} from ${query.from} order by ${query.orderBy} limit ? offset ?`, [
      ...query.params, page.perPage, (page.page - 1) * page.perPage,
    ]),
    sql<{ total: string }>(em, `select count(*) as total from ${query.countFrom ?? query.from}`, query.params),
  ]);
  return { rows, total: Number(counted[0]?.total ?? 0) };
}

/** A value for a LIKE pattern that matches `text` literally anywhere. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
