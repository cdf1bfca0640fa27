import { pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import { entryListing, type EntryFilters } from '../entries/entry-filters.ts';
import type { TradeRow } from './trade.view.ts';

const SELECT = `
  e.id, e.date, e.amount::text as amount, e.currency, e.name, e.notes,
  t.qty::text as qty, t.price::text as price, t.investment_activity_label,
  e.created_at, greatest(e.updated_at, t.updated_at) as updated_at,
  a.id as account_id, a.name as account_name, a.account_type,
  s.id as security_id, s.ticker as security_ticker, s.name as security_name`;

const FROM = `
  entries e
  join trades t on t.id = e.entryable_id
  join accounts a on a.id = e.account_id
  left join securities s on s.id = t.security_id`;

/** The trades a family sees: its own, on accounts that are in use (the list and show alike). */
const VISIBLE = `e.family_id = ? and e.entryable_type = 'Trade' and a.status in ('active', 'draft')`;

export function searchTrades(db: SqlTarget, familyId: string, filters: EntryFilters, page: PageRequest) {
  return pagedRows<TradeRow>(
    db,
    entryListing({ select: SELECT, from: FROM, visible: VISIBLE }, familyId, filters),
    page,
  );
}

export async function findTrade(db: SqlTarget, familyId: string, id: string): Promise<TradeRow> {
  const [row] = await sql<TradeRow>(db, `select ${SELECT} from ${FROM} where e.id = ? and ${VISIBLE}`, [id, familyId]);
  if (!row) throw NotFound.entity('Trade');
  return row;
}
