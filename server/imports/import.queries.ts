import { isoTimestamp } from '../db/timestamp.ts';
import { pagedRows, sql, type Statement, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import type { ImportConfiguration, ImportStatus, ImportType } from './import-configuration.ts';

export interface ImportRecord {
  id: string;
  type: ImportType;
  status: ImportStatus;
  account_id: string | null;
  rows_count: number;
  valid_rows_count: number;
  invalid_rows_count: number;
  imported_count: number;
  error: string | null;
  /** Place among the family's imports waiting for their turn (1 = next), or null when not waiting. */
  queue_position: number | null;
  configuration: ImportConfiguration;
  created_at: Date | string;
  updated_at: Date | string;
}

/** Columns of an import; `from` must name the table `imports` (the queue position counts its family's waiting ones). */
const SELECT = `id, type, status, account_id, rows_count, valid_rows_count, invalid_rows_count, imported_count,
  error, configuration, created_at, updated_at,
  case when queued_at is not null then (select count(*)::int from imports w
    where w.family_id = imports.family_id and w.queued_at is not null
      and (w.queued_at, w.id) <= (imports.queued_at, imports.id)) end as queue_position`;

/** The API's import object (summary form). */
export function importView(row: ImportRecord) {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    account_id: row.account_id,
    rows_count: row.rows_count,
    error: row.error,
    queue_position: row.queue_position,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** The API's import object with configuration and statistics. */
export function importDetailView(row: ImportRecord) {
  const { created_at, updated_at, ...summary } = importView(row);
  return {
    ...summary,
    configuration: row.configuration,
    stats: {
      rows_count: row.rows_count,
      valid_rows_count: row.valid_rows_count,
      invalid_rows_count: row.invalid_rows_count,
      imported_count: row.imported_count,
    },
    created_at,
    updated_at,
  };
}

export function searchImports(
  db: SqlTarget,
  familyId: string,
  filters: { status?: ImportStatus | undefined; type?: ImportType | undefined },
  page: PageRequest,
) {
  const conditions: Statement[] = [{ text: 'family_id = ?', params: [familyId] }];
  if (filters.status) conditions.push({ text: 'status = ?', params: [filters.status] });
  if (filters.type) conditions.push({ text: 'type = ?', params: [filters.type] });
  return pagedRows<ImportRecord>(
    db,
    {
      select: SELECT,
      from: `imports where ${conditions.map((condition) => condition.text).join(' and ')}`,
      orderBy: 'created_at desc, id desc',
      params: conditions.flatMap((condition) => condition.params),
    },
    page,
  );
}

/** The family's import, or 404. `forUpdate` locks it to the end of the caller's transaction. */
export async function findImport(
  db: SqlTarget,
  familyId: string,
  id: string,
  forUpdate = false,
): Promise<ImportRecord> {
  const [row] = await sql<ImportRecord>(
    db,
    `select ${SELECT} from imports where id = ? and family_id = ?${forUpdate ? ' for update' : ''}`,
    [id, familyId],
  );
  if (!row) throw NotFound.entity('Import');
  return row;
}

interface ImportRowRecord {
  row_number: number;
  line: number;
  valid: boolean;
  errors: { column?: string; message: string }[];
  fields: Record<string, string | null>;
}

/** A page of an import's rows in file order, optionally only the valid or the invalid ones. */
export function searchImportRows(db: SqlTarget, importId: string, valid: boolean | undefined, page: PageRequest) {
  return pagedRows<ImportRowRecord>(
    db,
    {
      select: 'row_number, line, valid, errors, fields',
      from: `import_rows where import_id = ?${valid === undefined ? '' : ' and valid = ?'}`,
      orderBy: 'row_number',
      params: valid === undefined ? [importId] : [importId, valid],
    },
    page,
  );
}
