import { isoTimestamp } from '../db/timestamp.ts';
import { pagedRows, sql, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';

export interface TagRow {
  id: string;
  name: string;
  color: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const SELECT = 'id, name, color, created_at, updated_at';

/** The API's tag object. */
export function tagView(row: TagRow) {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function searchTags(db: SqlTarget, familyId: string, page: PageRequest) {
  return pagedRows<TagRow>(
    db,
    { select: SELECT, from: 'tags where family_id = ?', orderBy: 'lower(name), id', params: [familyId] },
    page,
  );
}

export async function findTag(db: SqlTarget, familyId: string, id: string): Promise<TagRow> {
  const [row] = await sql<TagRow>(db, `select ${SELECT} from tags where id = ? and family_id = ?`, [id, familyId]);
  if (!row) throw NotFound.entity('Tag');
  return row;
}
