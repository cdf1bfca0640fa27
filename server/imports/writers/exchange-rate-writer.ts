import { upsertRates } from '../../exchange-rates/exchange-rate.upsert.ts';
import type { ImportJob, WriteOutcome } from './import-writer.ts';

/**
 * Writes the rates of an ExchangeRateImport: every rate of every row (an ECB row holds one per
 * currency), one per from/to/date with the last row naming it winning, creating or replacing the
 * family's rate. What it replaces is recorded for the revert (upsertRates). The accounts the rates
 * move are marked by the database; the task queues their syncs.
 */
export async function writeExchangeRates(job: ImportJob): Promise<WriteOutcome> {
  const counts = await upsertRates(job.run, {
    familyId: job.familyId,
    importId: job.id,
    rates: {
      text: `select distinct on (x.from_currency, x.to_currency, x.date)
                    x.from_currency, x.to_currency, x.date, x.rate, x.source
               from (select rate."from" as from_currency, rate."to" as to_currency,
                            (r."values"->>'date')::date as date, rate.rate::numeric as rate,
                            r."values"->>'source' as source, r.row_number
                       from import_rows r
                            cross join jsonb_to_recordset(r."values"->'rates') as rate("from" text, "to" text, rate text)
                      where r.import_id = ?::uuid) x
              order by x.from_currency, x.to_currency, x.date, x.row_number desc`,
      params: [job.id],
    },
  });
  const imported = counts.created + counts.updated;
  await job.progress(imported);
  return { imported, accounts: [], staleSyncs: true };
}
