import { deleteEntriesWithDetails } from '../entries/entry-deletion.ts';
import { revertImportedRates } from '../exchange-rates/exchange-rate.revert.ts';
import type { ImportJob } from './writers/import-writer.ts';

/**
 * Removes exactly what an import created, in the caller's transaction: its entries with their
 * details (taggings go with their transactions), then the categories, tags, merchants and rules it
 * created, and the accounts it created when nothing else remains in them; its exchange rates are
 * removed or put back as they were (revertImportedRates). Securities are shared and stay. Returns
 * the accounts whose balance must be recomputed, and whether rates changed (the database then
 * marked the accounts they move: WriteOutcome.staleSyncs).
 */
export async function revertImportRecords(
  job: Pick<ImportJob, 'id' | 'run'>,
): Promise<{ accounts: string[]; staleSyncs: boolean }> {
  // Rates first: their lock comes before account locks, as in every rate write.
  const rates = await revertImportedRates(job.run, job.id);
  const touched = await deleteEntriesWithDetails(job.run, 'import_id = ?::uuid', [job.id]);
  for (const table of ['categories', 'tags', 'merchants', 'rules']) {
    await job.run(`delete from ${table} where import_id = ?::uuid`, [job.id]);
  }
  const kept = await job.run<{ id: string }>(
    `delete from accounts a where a.import_id = ?::uuid
       and not exists (select 1 from entries e where e.account_id = a.id)
     returning a.id`,
    [job.id],
  );
  const deleted = new Set(kept.map((row) => row.id));
  return { accounts: touched.filter((id) => !deleted.has(id)), staleSyncs: rates > 0 };
}
