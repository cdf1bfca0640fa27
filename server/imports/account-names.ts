import type { Sql } from '../core/sql.ts';

/** A row of an AccountImport whose account name is taken. */
export interface NameClash {
  row_number: number;
  name: string;
  /** The earlier row with the same name, or null when the family already has the account. */
  first_row: number | null;
  /** Whether the row was valid otherwise. */
  valid: boolean;
}

/**
 * The rows of an AccountImport naming an account the family already has, or repeating the name of
 * an earlier row, in row order. Account names are unique per family in any case
 * (accounts_family_name_key), compared here with the same `lower()`. Staging flags every such row;
 * writing checks again, as accounts may have been opened since the rows were read.
 */
export function accountNameClashes(
  run: Sql,
  importId: string,
  familyId: string,
  limit: number | null = null,
): Promise<NameClash[]> {
  return run<NameClash>(
    `select d.row_number, d.name, case when d.first_row < d.row_number then d.first_row end as first_row, d.valid
     from (select r.row_number, r.fields->>'name' as name, r.valid,
             min(r.row_number) over (partition by lower(r.fields->>'name')) as first_row
           from import_rows r where r.import_id = ?::uuid and r.fields->>'name' <> '') d
     where d.first_row < d.row_number
        or exists (select 1 from accounts a where a.family_id = ?::uuid and lower(a.name) = lower(d.name))
     order by d.row_number limit ?`,
    [importId, familyId, limit],
  );
}

/** What is wrong with a clashing row, in words. */
export function clashMessage(clash: NameClash): string {
  return clash.first_row === null
    ? `an account named '${clash.name}' already exists`
    : `an account named '${clash.name}' is already in row ${clash.first_row}`;
}

/**
 * Marks the staged rows whose account name is taken as invalid, each with an error on the name's
 * column, so the rows view shows the clash before publishing. Returns how many rows were valid
 * until then.
 */
export async function flagNameClashes(run: Sql, importId: string, familyId: string, column: string): Promise<number> {
  const clashes = await accountNameClashes(run, importId, familyId);
  if (clashes.length === 0) return 0;
  await run(
    `update import_rows r set valid = false, "values" = null, errors = r.errors || jsonb_build_array(c.error)
     from jsonb_to_recordset(?::jsonb) as c(row_number int, error jsonb)
     where r.import_id = ?::uuid and r.row_number = c.row_number`,
    [
      JSON.stringify(
        clashes.map((clash) => ({ row_number: clash.row_number, error: { column, message: clashMessage(clash) } })),
      ),
      importId,
    ],
  );
  return clashes.filter((clash) => clash.valid).length;
}
