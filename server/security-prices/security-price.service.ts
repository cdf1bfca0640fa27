import type { EntityManager } from '@mikro-orm/postgresql';
import { queueStaleSyncs } from '../accounts/account-sync.ts';
import type { components } from '../core/api-types.generated.ts';
import { ProblemList } from '../core/errors.ts';
import { BOUNDS, SCALE } from '../core/money/bounds.ts';
import { currencyProblem } from '../core/money/currency-check.ts';
import { decimalInput } from '../core/money/decimal-input.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { balanceBoundAt } from '../balances/balance-bound.ts';

type PriceItem = components['schemas']['SecurityPricesUpsertRequest']['security_prices'][number];
type UpsertCounts = components['schemas']['UpsertCounts']['data'];

interface ExactPrice {
  securityId: string;
  date: string;
  price: string;
  currency: string;
}

/** The price as exact decimal text (4 places, above 0, at most 10^9), or a 422 at `path`. */
function priceInput(value: number | string, path: string): string {
  return decimalInput(value, {
    path,
    label: 'price',
    scale: SCALE.money,
    max: BOUNDS.price,
    aboveZero: true,
  });
}

/**
 * The security each item names, found among those the family sees (shared ones and its own): by
 * id (which counts when both are sent), or by ticker in any case, a shared security before the
 * family's own (as a trade picks them).
 * Null where none is visible: another family's security is answered like one that does not exist.
 */
async function securitiesOf(tx: EntityManager, familyId: string, items: readonly PriceItem[]) {
  const rows = await sql<{ n: number; id: string | null }>(
    tx,
    `select i.n, s.id from unnest(?::int[], ?::uuid[], ?::text[]) as i(n, security_id, ticker)
       left join lateral (
         select s.id from securities s
          where (s.family_id is null or s.family_id = ?::uuid)
            and (s.id = i.security_id or (i.security_id is null and upper(s.ticker) = i.ticker))
          order by s.family_id nulls first, s.id limit 1) s on true
      order by i.n`,
    [
      items.map((_, index) => index),
      items.map((item) => item.security_id ?? null),
      items.map((item) => item.ticker?.trim().toUpperCase() ?? null),
      familyId,
    ],
  );
  return rows.map((row) => row.id);
}

/**
 * Stores a request's prices as the family's own and queues the syncs of the accounts they move,
 * in one transaction. Every problem is reported at its pointer and nothing is written on any.
 * Of items naming one security and date the last counts; rows are written in (security, date)
 * order so that concurrent writes lock them in one order.
 */
export async function storePrices(
  em: EntityManager,
  familyId: string,
  items: readonly PriceItem[],
): Promise<UpsertCounts> {
  const problems = new ProblemList();
  const values = items.map((item, index) => {
    const at = `/security_prices/${index}`;
    const currency = currencyProblem(item.currency, `${at}/currency`);
    if (currency) problems.add(currency.path!, currency.message);
    return problems.take(() => priceInput(item.price, `${at}/price`));
  });
  return writeUnit(em, async (tx) => {
    const securities = await securitiesOf(tx, familyId, items);
    const byKey = new Map<string, ExactPrice>();
    items.forEach((item, index) => {
      const securityId = securities[index];
      if (!securityId) {
        problems.add(`/security_prices/${index}/${item.security_id ? 'security_id' : 'ticker'}`, 'Security not found');
        return;
      }
      const price = values[index];
      if (price === undefined) return;
      byKey.set(`${securityId}/${item.date}`, { securityId, date: item.date, price, currency: item.currency });
    });
    problems.throwIfAny();
    const prices = [...byKey.values()];
    const [counts] = await sql<UpsertCounts>(
      tx,
      `with written as (
         insert into security_prices (security_id, date, price, currency, family_id)
         select p.security_id, p.date, p.price, p.currency, ?::uuid
           from unnest(?::uuid[], ?::date[], ?::numeric[], ?::text[]) as p(security_id, date, price, currency)
          order by p.security_id, p.date
         on conflict (security_id, date, coalesce(family_id, '00000000-0000-0000-0000-000000000000')) do update
           set price = excluded.price, currency = excluded.currency, updated_at = now()
         returning (xmax = 0) as created
       )
       select count(*) filter (where created)::int as created, count(*) filter (where not created)::int as updated
         from written`,
      [
        familyId,
        prices.map((price) => price.securityId),
        prices.map((price) => price.date),
        prices.map((price) => price.price),
        prices.map((price) => price.currency),
      ],
    );
    await queueStaleSyncs(tx, familyId);
    return counts!;
  }).catch(balanceBoundAt({ path: '/security_prices' }));
}
