import { isoTimestamp } from '../db/timestamp.ts';
import { pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';

export interface MerchantRow {
  id: string;
  name: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const SELECT = 'id, name, created_at, updated_at';

/** The API's merchant object. */
export function merchantView(row: MerchantRow) {
  return {
    id: row.id,
    name: row.name,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function searchMerchants(db: SqlTarget, familyId: string, page: PageRequest) {
  return pagedRows<MerchantRow>(
    db,
    { select: SELECT, from: 'merchants where family_id = ?', orderBy: 'lower(name), id', params: [familyId] },
    page,
  );
}

export async function findMerchant(db: SqlTarget, familyId: string, id: string): Promise<MerchantRow> {
  const [row] = await sql<MerchantRow>(db, `select ${SELECT} from merchants where id = ? and family_id = ?`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Merchant');
  return row;
}
