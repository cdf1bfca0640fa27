import { containsPattern, pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';

export interface SecurityRow {
  id: string;
  ticker: string;
  name: string | null;
  exchange_operating_mic: string | null;
  kind: 'standard' | 'cash';
}

const SELECT = 'id, ticker, name, exchange_operating_mic, kind';
// Shared securities (no family) and the family's own are visible to it.
const VISIBLE = '(family_id is null or family_id = ?)';

/** The API's security object. */
export function securityView(row: SecurityRow) {
  return {
    id: row.id,
    ticker: row.ticker,
    name: row.name,
    exchange_operating_mic: row.exchange_operating_mic,
    kind: row.kind,
  };
}

export function searchSecurities(db: SqlTarget, familyId: string, filters: { search?: string }, page: PageRequest) {
  let from = `securities where ${VISIBLE}`;
  const params: unknown[] = [familyId];
  if (filters.search) {
    from += ' and (ticker ilike ? or name ilike ?)';
    params.push(containsPattern(filters.search), containsPattern(filters.search));
  }
  return pagedRows<SecurityRow>(db, { select: SELECT, from, orderBy: 'upper(ticker), id', params }, page);
}

export async function findSecurity(db: SqlTarget, familyId: string, id: string): Promise<SecurityRow> {
  const [row] = await sql<SecurityRow>(db, `select ${SELECT} from securities where id = ? and ${VISIBLE}`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Security');
  return row;
}
