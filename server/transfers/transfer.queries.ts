import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import { dateRange, pagedRows, sql, type ListingQuery, type SqlTarget } from '../core/sql.ts';
import type { TransferStatus } from './transfer-rule.ts';
import type { TransferRow } from './transfer.view.ts';

/** The filters of the transfers list; all combine with AND. */
export interface TransferFilters {
  account_id?: string;
  start_date?: string;
  end_date?: string;
  status?: TransferStatus;
}

/** Each side as JSON: the transaction (entry) and its account. */
const side = (entry: string, account: string) => `json_build_object('id', ${entry}.id, 'date', ${entry}.date,
  'amount', ${entry}.amount::text, 'currency', ${entry}.currency, 'account_id', ${account}.id,
  'account_name', ${account}.name, 'account_type', ${account}.account_type)`;

const SELECT = `x.id, x.status, x.created_at, x.updated_at, o.notes,
  ${side('o', 'oa')} as outflow, ${side('i', 'ia')} as inflow`;

const JOINS = `
  transfers x
  join entries o on o.id = x.outflow_entry_id
  join accounts oa on oa.id = o.account_id
  join entries i on i.id = x.inflow_entry_id
  join accounts ia on ia.id = i.account_id`;

/** The family's transfers under `filters`, newest outflow first. */
export function transferListing(familyId: string, filters: TransferFilters): ListingQuery {
  const conditions = ['x.family_id = ?'];
  const params: unknown[] = [familyId];
  if (filters.account_id) {
    conditions.push('(o.account_id = ? or i.account_id = ?)');
    params.push(filters.account_id, filters.account_id);
  }
  for (const condition of dateRange('o.date', filters)) {
    conditions.push(condition.text);
    params.push(...condition.params);
  }
  if (filters.status) {
    conditions.push('x.status = ?');
    params.push(filters.status);
  }
  return {
    select: SELECT,
    from: `${JOINS} where ${conditions.join(' and ')}`,
    orderBy: 'o.date desc, x.created_at desc, x.id desc',
    params,
  };
}

export function searchTransfers(db: SqlTarget, familyId: string, filters: TransferFilters, page: PageRequest) {
  return pagedRows<TransferRow>(db, transferListing(familyId, filters), page);
}

/** One transfer of the family, or 404 (also for another family's). */
export async function findTransfer(db: SqlTarget, familyId: string, id: string): Promise<TransferRow> {
  const [row] = await sql<TransferRow>(db, `select ${SELECT} from ${JOINS} where x.id = ? and x.family_id = ?`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Transfer');
  return row;
}
