import { fromUnits, toUnits } from '../core/money/decimal-math.ts';
/** One trade as the position calculation reads it (quantity signed: a sale is negative), decimals as text. */
export interface TradeFact {
  securityId: string;
  date: string;
  qty: string;
  price: string;
  currency: string;
}

/** A known market price of a security on a date (rows of the same date: the one that counts last). */
export interface PriceFact {
  securityId: string;
  date: string;
  price: string;
  currency: string;
}

/** A position in one security at the end of a date; decimals as text in the columns' scales. */
export interface Position {
  securityId: string;
  date: string;
  /** Units held (8 places). */
  qty: string;
  /** Price per unit (4 places). */
  price: string;
  /** Units x price (4 places). */
  amount: string;
  /** Average cost per unit of what is held (4 places); null when nothing is held. */
  avgCost: string | null;
  /** The currency of the price (and so of the amount). */
  currency: string;
}

// Exact integer arithmetic (core/money/decimal-math.ts) in the columns' scales: quantities `numeric(24,8)`, money
// `numeric(19,4)`. Floating point would lose cents on large positions.
const QTY_SCALE = 8;
const MONEY_SCALE = 4;

/** numerator / denominator rounded half away from zero, as PostgreSQL rounds numerics. */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (2n * n + d) / (2n * d);
  return negative ? -quotient : quotient;
}

const UNIT = 10n ** BigInt(QTY_SCALE); // qty x price has QTY_SCALE + MONEY_SCALE places

/** A price in 10^-4 units with its currency. */
interface Quote {
  price: bigint;
  currency: string;
}

/**
 * The one price rule of a security on a date: the latest price on or before it, a market price
 * row winning over a trade's price of the same date, a trade's price counting otherwise. Dates are
 * asked in ascending order; `trade` is told each trade as the walk passes it.
 */
class PriceCursor {
  private index = -1;
  private market: Quote & { date: string } = { date: '', price: 0n, currency: '' };
  private traded: Quote & { date: string } = { date: '', price: 0n, currency: '' };

  constructor(private readonly rows: readonly PriceFact[]) {}

  trade(trade: TradeFact): void {
    this.traded = { date: trade.date, price: toUnits(trade.price, MONEY_SCALE), currency: trade.currency };
  }

  on(date: string): Quote {
    while (this.index + 1 < this.rows.length && this.rows[this.index + 1]!.date <= date) {
      const row = this.rows[++this.index]!;
      this.market = { date: row.date, price: toUnits(row.price, MONEY_SCALE), currency: row.currency };
    }
    return this.market.date && this.market.date >= this.traded.date ? this.market : this.traded;
  }
}

/** Facts grouped by security, each list in date order (stable: same-date rows keep their order). */
function bySecurity<T extends { securityId: string; date: string }>(
  facts: readonly T[],
  until: string,
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const fact of facts) {
    if (fact.date > until) continue;
    const list = groups.get(fact.securityId);
    if (list) list.push(fact);
    else groups.set(fact.securityId, [fact]);
  }
  for (const list of groups.values()) list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return groups;
}

/**
 * The positions of an account from its trades (in date order): one per security and date on which
 * the position changed, and one for `today` while something is held. Quantities accumulate; buys
 * add their cost, sells remove units at the average cost, so a sale never changes the average.
 * A position is valued with the price rule of PriceCursor.
 */
export function positions(trades: readonly TradeFact[], prices: readonly PriceFact[], today: string): Position[] {
  const pricesBySecurity = bySecurity(prices, today);
  const result: Position[] = [];
  for (const [securityId, list] of bySecurity(trades, today)) {
    const cursor = new PriceCursor(pricesBySecurity.get(securityId) ?? []);
    let qty = 0n; // 10^-8 units
    let cost = 0n; // 10^-12 money: qty x price, exact
    const push = (date: string) => {
      const quote = cursor.on(date);
      result.push({
        securityId,
        date,
        qty: fromUnits(qty, QTY_SCALE),
        price: fromUnits(quote.price, MONEY_SCALE),
        amount: fromUnits(divideRounded(qty * quote.price, UNIT), MONEY_SCALE),
        avgCost: qty > 0n ? fromUnits(divideRounded(cost, qty), MONEY_SCALE) : null,
        currency: quote.currency,
      });
    };
    for (let i = 0; i < list.length; i++) {
      const trade = list[i]!;
      const change = toUnits(trade.qty, QTY_SCALE);
      const price = toUnits(trade.price, MONEY_SCALE);
      if (change > 0n) cost += change * price;
      else if (qty > 0n) cost -= divideRounded(cost * (-change < qty ? -change : qty), qty);
      qty += change;
      if (qty <= 0n) cost = 0n;
      cursor.trade(trade);
      // One position per date: after the last trade of that date.
      if (list[i + 1]?.date !== trade.date) push(trade.date);
    }
    if (list[list.length - 1]!.date !== today && qty !== 0n) push(today);
  }
  return result;
}

/** What is held of one security at the end of a day, valued with the price rule. */
export interface DayHolding {
  securityId: string;
  /** Units held (8 places). */
  qty: string;
  /** Price per unit (4 places) in `currency`. */
  price: string;
  currency: string;
}

/**
 * Every day from `from` to `to` (ascending ISO dates) with what the account held at its end: one
 * entry per security with a non-zero quantity. Trades before `from` count towards the quantity.
 */
export function dailyHoldings(
  trades: readonly TradeFact[],
  prices: readonly PriceFact[],
  days: readonly string[],
): DayHolding[][] {
  const to = days[days.length - 1] ?? '';
  const pricesBySecurity = bySecurity(prices, to);
  const result: DayHolding[][] = days.map(() => []);
  for (const [securityId, list] of bySecurity(trades, to)) {
    const cursor = new PriceCursor(pricesBySecurity.get(securityId) ?? []);
    let qty = 0n;
    let next = 0;
    days.forEach((day, index) => {
      while (next < list.length && list[next]!.date <= day) {
        qty += toUnits(list[next]!.qty, QTY_SCALE);
        cursor.trade(list[next++]!);
      }
      if (qty === 0n) return;
      const quote = cursor.on(day);
      result[index]!.push({
        securityId,
        qty: fromUnits(qty, QTY_SCALE),
        price: fromUnits(quote.price, MONEY_SCALE),
        currency: quote.currency,
      });
    });
  }
  return result;
}
