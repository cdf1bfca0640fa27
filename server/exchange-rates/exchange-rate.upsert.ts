import type { components } from '../core/api-types.generated.ts';
import type { Sql, Statement } from '../core/sql.ts';

/** Where a rate came from: a request, or an ExchangeRateImport of the ECB's file or of plain rows. */
export type RateSource = components['schemas']['ExchangeRate']['source'];

/** How many records a write created and how many it replaced. */
export type UpsertCounts = components['schemas']['UpsertCounts']['data'];

export interface RateWrite {
  familyId: string;
  /**
   * The rates as SQL yielding `(from_currency, to_currency, date, rate, source)`, one row per
   * from/to/date (a repeated pair and date would be a second change of one row in one statement).
   */
  rates: Statement;
  /** The import writing them: its replacements are recorded, so its revert can put them back. */
  importId?: string;
}

/**
 * Creates or replaces a family's rates in one statement, rows taken in (from, to, date) order so
 * that concurrent writes lock them in one order and wait instead of deadlocking. `xmax = 0` tells
 * a new row from a replaced one. The triggers of migration 20261129000000 mark the accounts the
 * rates move; the caller queues their syncs in the same transaction (queueStaleSyncs).
 *
 * A request's write clears `import_id`: a rate set by hand is no longer the import's to revert.
 * An import first records the values it is about to replace (rows locked first, in the same
 * order), so its revert can put them back.
 */
export async function upsertRates(run: Sql, write: RateWrite): Promise<UpsertCounts> {
  const importId = write.importId ?? null;
  if (importId) {
    await run(
      `with incoming as (${write.rates.text}), replaced as (
         select r.id, r.rate, r.source, r.import_id from exchange_rates r
           join incoming i on r.family_id = ?::uuid and r.from_currency = i.from_currency
                          and r.to_currency = i.to_currency and r.date = i.date
          order by r.from_currency, r.to_currency, r.date
            for update of r
       )
       insert into exchange_rate_replacements (import_id, exchange_rate_id, rate, source, replaced_import_id)
       select ?::uuid, id, rate, source, import_id from replaced`,
      [...write.rates.params, write.familyId, importId],
    );
  }
  const [counts] = await run<UpsertCounts>(
    `with incoming as (${write.rates.text}), written as (
       insert into exchange_rates (family_id, from_currency, to_currency, date, rate, source, import_id)
       select ?::uuid, i.from_currency, i.to_currency, i.date, i.rate, i.source, ?::uuid from incoming i
        order by i.from_currency, i.to_currency, i.date
       on conflict (family_id, from_currency, to_currency, date) do update
         set rate = excluded.rate, source = excluded.source, import_id = excluded.import_id, updated_at = now()
       returning (xmax = 0) as created
     )
     select count(*) filter (where created)::int as created, count(*) filter (where not created)::int as updated
       from written`,
    [...write.rates.params, write.familyId, importId],
  );
  return counts!;
}
