import type { Sql } from '../core/sql.ts';

/**
 * Deletes the entries matching `condition` (SQL over `entries`, its `?` filled from `params`)
 * with their details in one statement: transactions, trades and valuations have no foreign key to
 * their entry (`entryable_id` is polymorphic), so they go by name; taggings and transfers follow
 * by foreign key, and the entries' triggers keep counts, totals and stale marks. Returns the
 * accounts that lost entries.
 */
export async function deleteEntriesWithDetails(run: Sql, condition: string, params: unknown[]): Promise<string[]> {
  const rows = await run<{ account_id: string }>(
    `with removed as (
       delete from entries where ${condition} returning entryable_type, entryable_id, account_id
     ), transactions_removed as (
       delete from transactions where id in (select entryable_id from removed where entryable_type = 'Transaction')
     ), trades_removed as (
       delete from trades where id in (select entryable_id from removed where entryable_type = 'Trade')
     ), valuations_removed as (
       delete from valuations where id in (select entryable_id from removed where entryable_type = 'Valuation')
     )
     select distinct account_id from removed`,
    params,
  );
  return rows.map((row) => row.account_id);
}
