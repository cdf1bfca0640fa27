import { pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import type { PageRequest } from '../core/pagination.ts';
import { entryListing, type EntryFilters } from '../entries/entry-filters.ts';
import { NotFound } from '../core/errors.ts';
import type { ValuationRow } from './valuation.view.ts';

const SELECT = `e.id, e.date, e.amount::text as amount, e.currency, e.notes, v.kind,
  e.created_at, greatest(e.updated_at, v.updated_at) as updated_at,
  a.id as account_id, a.name as account_name, a.account_type`;

const FROM = `entries e
  join valuations v on v.id = e.entryable_id
  join accounts a on a.id = e.account_id`;

/** A page of the family's valuations, newest date first, as the transaction and trade lists. */
export function searchValuations(db: SqlTarget, familyId: string, filters: EntryFilters, page: PageRequest) {
  const visible = `e.family_id = ? and e.entryable_type = 'Valuation'`;
  return pagedRows<ValuationRow>(db, entryListing({ select: SELECT, from: FROM, visible }, familyId, filters), page);
}

/** A valuation of the family by its entry id, or 404 (also for another family's). */
export async function findValuation(db: SqlTarget, familyId: string, id: string): Promise<ValuationRow> {
  const [row] = await sql<ValuationRow>(
    db,
    `select ${SELECT} from ${FROM} where e.id = ? and e.family_id = ? and e.entryable_type = 'Valuation'`,
    [id, familyId],
  );
  if (!row) throw NotFound.entity('Valuation');
  return row;
}
