import type { Sql } from '../core/sql.ts';

/**
 * Undoes an import's rates, in the caller's transaction: a rate it created is removed, a rate it
 * replaced gets back the value (and source, and import) it had before. A rate changed again since
 * (by a request or a later import) is no longer this import's and is left alone. A later import
 * that replaced one of this import's rates would, on its own revert, put back a value that no
 * longer exists: its record is moved to what this import had replaced (or dropped, when this
 * import had created the rate, so that revert removes it). Returns how many rates changed.
 */
export async function revertImportedRates(run: Sql, importId: string): Promise<number> {
  const removed = await run(
    `delete from exchange_rates r where r.import_id = ?::uuid
       and not exists (select 1 from exchange_rate_replacements p where p.import_id = r.import_id and p.exchange_rate_id = r.id)
     returning r.id`,
    [importId],
  );
  const restored = await run(
    `update exchange_rates r
        set rate = p.rate, source = p.source, import_id = p.replaced_import_id, updated_at = now()
       from exchange_rate_replacements p
      where p.import_id = ?::uuid and r.id = p.exchange_rate_id and r.import_id = p.import_id
     returning r.id`,
    [importId],
  );
  await run(
    `delete from exchange_rate_replacements later where later.replaced_import_id = ?::uuid
       and not exists (select 1 from exchange_rate_replacements p
                        where p.import_id = later.replaced_import_id and p.exchange_rate_id = later.exchange_rate_id)`,
    [importId],
  );
  await run(
    `update exchange_rate_replacements later
        set rate = p.rate, source = p.source, replaced_import_id = p.replaced_import_id
       from exchange_rate_replacements p
      where later.replaced_import_id = ?::uuid and p.import_id = later.replaced_import_id
        and p.exchange_rate_id = later.exchange_rate_id`,
    [importId],
  );
  await run('delete from exchange_rate_replacements where import_id = ?::uuid', [importId]);
  return removed.length + restored.length;
}
