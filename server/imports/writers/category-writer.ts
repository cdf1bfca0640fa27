import { ImportDataError, type ImportJob, type WriteOutcome } from './import-writer.ts';

/** The colour a category gets when none is given (the API's default). */
const DEFAULT_COLOR = '#6172F3';

/**
 * The categories an import creates, one per name (any case; of rows repeating a name the first
 * counts), leaving out names the family already has: the rows the import creates and the parent
 * each names (null for a top-level one).
 */
const NEW_CATEGORIES = `
  select distinct on (lower(r."values"->>'name')) r.row_number, r."values"->>'name' as name,
    r."values"->>'color' as color, r."values"->>'icon' as icon, r."values"->>'parent' as parent
  from import_rows r
  where r.import_id = ?::uuid and not exists (
    select 1 from categories c where c.family_id = ?::uuid and lower(c.name) = lower(r."values"->>'name'))
  order by lower(r."values"->>'name'), r.row_number`;

/**
 * Categories nest one level (the contract: "optionally nested one level"): a new category's parent
 * must be a top-level category, whether it exists already or is created by this import.
 */
async function checkNesting(job: ImportJob): Promise<void> {
  const [deep] = await job.run<{ row_number: number; name: string; parent: string }>(
    `with created as (${NEW_CATEGORIES})
     select n.row_number, n.name, n.parent from created n
     where n.parent is not null and (
       exists (select 1 from categories c where c.family_id = ?::uuid and lower(c.name) = lower(n.parent)
                 and c.parent_id is not null)
       or exists (select 1 from created p where lower(p.name) = lower(n.parent) and p.parent is not null))
     order by n.row_number limit 1`,
    [job.id, job.familyId, job.familyId],
  );
  if (deep) {
    throw new ImportDataError(
      `Row ${deep.row_number}: category '${deep.name}' cannot go under '${deep.parent}', which is itself a subcategory (categories nest one level)`,
    );
  }
}

/**
 * Writes the categories of a CategoryImport, upserting by name (any case). A category the family
 * already has is left exactly as it is: its colour, icon and parent are not changed (an import
 * adds categories, it does not edit them, and a revert could not restore the old values), and the
 * parent its row names is not created for it. New categories are written with the import's id:
 * first the top-level ones (rows without a parent, and the parents the rows name that do not
 * exist yet, created with the default colour unless a row of their own gives one), then the
 * subcategories under them. Returns the number of categories created.
 */
export async function writeCategories(job: ImportJob): Promise<WriteOutcome> {
  await checkNesting(job);
  const [top] = await job.run<{ n: number }>(
    `with created as (${NEW_CATEGORIES}), written as (
       insert into categories (id, family_id, name, color, icon, import_id)
       select gen_random_uuid(), ?::uuid, t.name, coalesce(t.color, ?), t.icon, ?::uuid
       from ((select n.name, n.color, n.icon, n.row_number from created n where n.parent is null)
             union all
             (select distinct on (lower(n.parent)) n.parent, null::text, null::text, n.row_number from created n
              where n.parent is not null and not exists (select 1 from created p where lower(p.name) = lower(n.parent))
              order by lower(n.parent), n.row_number)) t
       order by t.row_number
       on conflict (family_id, lower(name)) do nothing
       returning 1
     )
     select count(*)::int as n from written`,
    [job.id, job.familyId, job.familyId, DEFAULT_COLOR, job.id],
  );
  const [sub] = await job.run<{ n: number }>(
    `with created as (${NEW_CATEGORIES}), written as (
       insert into categories (id, family_id, name, color, icon, parent_id, import_id)
       select gen_random_uuid(), ?::uuid, n.name, coalesce(n.color, ?), n.icon, p.id, ?::uuid
       from created n join categories p on p.family_id = ?::uuid and lower(p.name) = lower(n.parent)
       order by n.row_number
       on conflict (family_id, lower(name)) do nothing
       returning 1
     )
     select count(*)::int as n from written`,
    [job.id, job.familyId, job.familyId, DEFAULT_COLOR, job.id, job.familyId],
  );
  const imported = top!.n + sub!.n;
  await job.progress(imported);
  return { imported, accounts: [] };
}
