import type { EntityManager } from '@mikro-orm/postgresql';
import { queueStaleSyncs } from '../accounts/account-sync.ts';
import { sqlOn } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { balanceBoundAt } from '../balances/balance-bound.ts';
import { readRates, type RateItem } from './exchange-rate.input.ts';
import { upsertRates, type UpsertCounts } from './exchange-rate.upsert.ts';

/**
 * Stores a request's rates for the family (source `api`) and queues the syncs of the accounts
 * they move, in one transaction: a sync exists exactly when the rates it reads committed.
 */
export async function storeRates(
  em: EntityManager,
  familyId: string,
  items: readonly RateItem[],
): Promise<UpsertCounts> {
  const rates = readRates(items);
  return writeUnit(em, async (tx) => {
    const counts = await upsertRates(sqlOn(tx), {
      familyId,
      rates: {
        text: `select r.*, 'api' as source
                 from unnest(?::text[], ?::text[], ?::date[], ?::numeric[]) as r(from_currency, to_currency, date, rate)`,
        params: [
          rates.map((rate) => rate.from),
          rates.map((rate) => rate.to),
          rates.map((rate) => rate.date),
          rates.map((rate) => rate.rate),
        ],
      },
    });
    await queueStaleSyncs(tx, familyId);
    return counts;
  }).catch(balanceBoundAt({ path: '/exchange_rates' }));
}
