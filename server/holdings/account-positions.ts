import type { Statement } from '../core/sql.ts';
import { positions, type Position, type PriceFact, type TradeFact } from './holding.positions.ts';

/** Runs one statement on the caller's connection (a job's client, or a request's transaction). */
export type RunStatement = <Row>(statement: Statement) => Promise<Row[]>;

/** The last date PostgreSQL knows: as `today`, it takes every trade into account, future-dated ones too. */
export const END_OF_TIME = '9999-12-31';

/** An account's trades and the prices of their securities it may use, up to `today`. */
export interface MarketFacts {
  trades: TradeFact[];
  prices: PriceFact[];
  today: string;
}

/**
 * The stored trades of an account (or of one of its securities) and the prices visible to its
 * family: shared rows first and the family's own last on a date, so its own price counts. `today`
 * defaults to PostgreSQL's.
 */
export async function marketFacts(
  run: RunStatement,
  accountId: string,
  options: { securityId?: string; today?: string } = {},
): Promise<MarketFacts> {
  const trades = await run<TradeFact>({
    text: `select t.security_id as "securityId", to_char(e.date, 'YYYY-MM-DD') as date, t.qty::text as qty,
                  t.price::text as price, t.currency
             from entries e join trades t on t.id = e.entryable_id
            where e.account_id = ?::uuid and e.entryable_type = 'Trade' and (?::uuid is null or t.security_id = ?::uuid)
            order by e.date, e.created_at, e.id`,
    params: [accountId, options.securityId ?? null, options.securityId ?? null],
  });
  const securityIds = [...new Set(trades.map((trade) => trade.securityId))];
  const [{ today }] = (await run<{ today: string }>({
    text: "select to_char(current_date, 'YYYY-MM-DD') as today",
    params: [],
  })) as [{ today: string }];
  const until = options.today ?? today;
  const prices = await run<PriceFact>({
    text: `select p.security_id as "securityId", to_char(p.date, 'YYYY-MM-DD') as date, p.price::text as price, p.currency
             from security_prices p
            where p.security_id = any(?::uuid[]) and p.date <= ?::date
              and (p.family_id is null or p.family_id = (select family_id from accounts where id = ?::uuid))
            order by p.date, p.family_id nulls first`,
    params: [securityIds, until, accountId],
  });
  return { trades, prices, today: until };
}

/**
 * The positions of an account (or of one of its securities): what the account sync stores as
 * holdings, and what a trade write checks before it commits, so both read the same facts in the
 * same order.
 */
export async function accountPositions(
  run: RunStatement,
  accountId: string,
  options: { securityId?: string; today?: string } = {},
): Promise<Position[]> {
  const facts = await marketFacts(run, accountId, options);
  return positions(facts.trades, facts.prices, facts.today);
}
