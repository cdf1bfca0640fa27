import { isoTimestamp } from '../db/timestamp.ts';
import { pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';

export interface CategoryRow {
  id: string;
  name: string;
  color: string;
  icon: string | null;
  parent_id: string | null;
  parent_name: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const SELECT = `c.id, c.name, c.color, c.icon, p.id as parent_id, p.name as parent_name, c.created_at, c.updated_at`;
const FROM = `categories c left join categories p on p.id = c.parent_id where c.family_id = ?`;

/** The API's category object. */
export function categoryView(row: CategoryRow) {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    icon: row.icon,
    parent: row.parent_id ? { id: row.parent_id, name: row.parent_name ?? '' } : null,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function searchCategories(db: SqlTarget, familyId: string, page: PageRequest) {
  return pagedRows<CategoryRow>(
    db,
    {
      select: SELECT,
      from: FROM,
      count: { text: 'select count(*) from categories c where c.family_id = ?', params: [familyId] },
      orderBy: 'lower(c.name), c.id',
      params: [familyId],
    },
    page,
  );
}

export async function findCategory(db: SqlTarget, familyId: string, id: string): Promise<CategoryRow> {
  const [row] = await sql<CategoryRow>(db, `select ${SELECT} from ${FROM} and c.id = ?`, [familyId, id]);
  if (!row) throw NotFound.entity('Category');
  return row;
}
