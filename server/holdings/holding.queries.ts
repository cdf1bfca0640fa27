import { dateRange, pagedRows, sql, type ListingQuery, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import type { HoldingRow } from './holding.view.ts';

export interface HoldingFilters {
  account_id?: string;
  account_ids?: string[];
  date?: string;
  start_date?: string;
  end_date?: string;
  security_id?: string;
}

const SELECT = `
  h.id, h.date, h.qty::text as qty, h.price::text as price, h.amount::text as amount,
  h.avg_cost::text as avg_cost, h.currency, h.created_at, h.updated_at,
  a.id as account_id, a.name as account_name, a.account_type,
  s.id as security_id, s.ticker as security_ticker, s.name as security_name`;

const FROM = `holdings h join accounts a on a.id = h.account_id join securities s on s.id = h.security_id`;

/** The holdings a family sees: of its own accounts that are in use (active or draft), list and show alike. */
const VISIBLE = `a.family_id = ? and a.status in ('active', 'draft')`;

/** How a holdings listing reads the rows, beyond the list endpoint's filters. */
export interface HoldingListingOptions {
  /**
   * Current positions as of this date (`YYYY-MM-DD`) instead of the dated series: per account and
   * security the latest row on or before it, left out when nothing is held, largest value first.
   */
  positionsOn?: string;
}

/** The listing of the holdings a family sees under `filters` (the list endpoint's, and the assistant's positions). */
export function holdingListing(
  familyId: string,
  filters: HoldingFilters,
  options: HoldingListingOptions = {},
): ListingQuery {
  const conditions = [VISIBLE];
  const params: unknown[] = [familyId];
  const add = (condition: string, value: unknown) => {
    conditions.push(condition);
    params.push(value);
  };
  if (filters.account_id) add('h.account_id = ?', filters.account_id);
  if (filters.account_ids?.length) add('h.account_id = any(?::uuid[])', filters.account_ids);
  if (filters.security_id) add('h.security_id = ?', filters.security_id);
  if (filters.date) add('h.date = ?', filters.date);
  for (const condition of dateRange('h.date', filters)) add(condition.text, condition.params[0]);
  if (options.positionsOn) {
    // The sync writes a row only when a position changes (and one for the day it runs), so the
    // position on a date is the latest row up to it; a sale of everything leaves a zero row.
    add(
      `h.qty <> 0 and h.date = (select max(p.date) from holdings p
        where p.account_id = h.account_id and p.security_id = h.security_id and p.date <= ?::date)`,
      options.positionsOn,
    );
  }
  const where = conditions.join(' and ');
  return {
    select: SELECT,
    from: `${FROM} where ${where}`,
    // The series in date order (then security), the order of the account index, so a page is read,
    // not sorted; positions by value, largest first.
    orderBy: options.positionsOn ? 'h.amount desc, h.id' : 'h.date, h.security_id',
    params,
    // Every holding has its security (a foreign key): the total needs no join to it.
    count: { text: `select count(*) from holdings h join accounts a on a.id = h.account_id where ${where}`, params },
  };
}

export function searchHoldings(db: SqlTarget, familyId: string, filters: HoldingFilters, page: PageRequest) {
  return pagedRows<HoldingRow>(db, holdingListing(familyId, filters), page);
}

export async function findHolding(db: SqlTarget, familyId: string, id: string): Promise<HoldingRow> {
  const [row] = await sql<HoldingRow>(db, `select ${SELECT} from ${FROM} where h.id = ? and ${VISIBLE}`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Holding');
  return row;
}
