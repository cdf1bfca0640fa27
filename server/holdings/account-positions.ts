import type { Statement } from '../core/sql.ts';
import { positions, type Position } from './holding.positions.ts';

/** Runs one statement on the caller's connection (a job's client, or a request's transaction). */
export type RunStatement = <Row>(statement: Statement) => Promise<Row[]>;

/** The last date PostgreSQL knows: as `today`, it takes every trade into account, future-dated ones too. */
export const END_OF_TIME = '9999-12-31';

/**
 * The positions of an account (or of one of its securities) from its stored trades and the known
 * prices: what the account sync stores as holdings, and what a trade write checks before it
 * commits, so both read the same facts in the same order. `today` defaults to PostgreSQL's.
 */
export async function accountPositions(
  run: RunStatement,
  accountId: string,
  options: { securityId?: string; today?: string } = {},
): Promise<Position[]> {
  const trades = await run<{ security_id: string; date: string; qty: string; price: string; currency: string }>({
    text: `select t.security_id, to_char(e.date, 'YYYY-MM-DD') as date, t.qty::text as qty, t.price::text as price, t.currency
             from entries e join trades t on t.id = e.entryable_id
            where e.account_id = ?::uuid and e.entryable_type = 'Trade' and (?::uuid is null or t.security_id = ?::uuid)
            order by e.date, e.created_at, e.id`,
    params: [accountId, options.securityId ?? null, options.securityId ?? null],
  });
  const securityIds = [...new Set(trades.map((trade) => trade.security_id))];
  const [{ today }] = (await run<{ today: string }>({
    text: "select to_char(current_date, 'YYYY-MM-DD') as today",
    params: [],
  })) as [{ today: string }];
  // The prices the account's family sees: its own and shared market data, its own winning on a day
  // that has both. Another family's prices are theirs alone (POST /security_prices writes them).
  const prices = await run<{ security_id: string; date: string; price: string }>({
    text: `select distinct on (p.security_id, p.date) p.security_id, to_char(p.date, 'YYYY-MM-DD') as date,
                  p.price::text as price
             from security_prices p
            where p.security_id = any(?::uuid[]) and p.date <= ?::date
              and (p.family_id is null or p.family_id = (select a.family_id from accounts a where a.id = ?::uuid))
            order by p.security_id, p.date, p.family_id nulls last`,
    params: [securityIds, options.today ?? today, accountId],
  });
  return positions(
    trades.map((trade) => ({
      securityId: trade.security_id,
      date: trade.date,
      qty: trade.qty,
      price: trade.price,
      currency: trade.currency,
    })),
    prices.map((price) => ({ securityId: price.security_id, date: price.date, price: price.price })),
    options.today ?? today,
  );
}
