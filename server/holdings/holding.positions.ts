/** One trade as the position calculation reads it (quantity signed: a sale is negative), decimals as text. */
export interface TradeFact {
  securityId: string;
  date: string;
  qty: string;
  price: string;
  currency: string;
}

/** A known market price of a security on a date. */
export interface PriceFact {
  securityId: string;
  date: string;
  price: string;
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
  currency: string;
}

// Exact integer arithmetic in the columns' scales: quantities `numeric(24,8)`, money
// `numeric(19,4)`. Floating point would lose cents on large positions.
const QTY_SCALE = 8;
const MONEY_SCALE = 4;

/** A decimal string as an integer count of 10^-scale units (the text has at most `scale` places). */
function scaled(decimal: string, scale: number): bigint {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = decimal.replace(/^[-+]/, '').split('.');
  const units = BigInt(whole + fraction.padEnd(scale, '0').slice(0, scale));
  return negative ? -units : units;
}

/** An integer count of 10^-scale units as decimal text with `scale` places. */
function text(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** numerator / denominator rounded half away from zero, as PostgreSQL rounds numerics. */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (2n * n + d) / (2n * d);
  return negative ? -quotient : quotient;
}

const UNIT = 10n ** BigInt(QTY_SCALE); // qty x price has QTY_SCALE + MONEY_SCALE places

/**
 * The positions of an account from its trades (in date order): one per security and date on which
 * the position changed, and one for `today` while something is held. Quantities accumulate; buys
 * add their cost, sells remove units at the average cost, so a sale never changes the average.
 * A position is valued at the latest market price on or before its date, else at the latest
 * trade price of that security up to then.
 */
export function positions(trades: readonly TradeFact[], prices: readonly PriceFact[], today: string): Position[] {
  const pricesBySecurity = new Map<string, PriceFact[]>();
  for (const price of prices) {
    const list = pricesBySecurity.get(price.securityId);
    if (list) list.push(price);
    else pricesBySecurity.set(price.securityId, [price]);
  }
  const tradesBySecurity = new Map<string, TradeFact[]>();
  for (const trade of trades) {
    if (trade.date > today) continue;
    const list = tradesBySecurity.get(trade.securityId);
    if (list) list.push(trade);
    else tradesBySecurity.set(trade.securityId, [trade]);
  }
  const result: Position[] = [];
  for (const [securityId, list] of tradesBySecurity) {
    const market = (pricesBySecurity.get(securityId) ?? []).sort((a, b) => (a.date < b.date ? -1 : 1));
    let marketIndex = -1;
    const priceOn = (date: string, lastTradePrice: bigint) => {
      while (marketIndex + 1 < market.length && market[marketIndex + 1]!.date <= date) marketIndex++;
      return marketIndex >= 0 ? scaled(market[marketIndex]!.price, MONEY_SCALE) : lastTradePrice;
    };
    let qty = 0n; // 10^-8 units
    let cost = 0n; // 10^-12 money: qty x price, exact
    let lastPrice = 0n;
    const currency = list[list.length - 1]!.currency;
    const push = (date: string) => {
      const price = priceOn(date, lastPrice);
      result.push({
        securityId,
        date,
        qty: text(qty, QTY_SCALE),
        price: text(price, MONEY_SCALE),
        amount: text(divideRounded(qty * price, UNIT), MONEY_SCALE),
        avgCost: qty > 0n ? text(divideRounded(cost, qty), MONEY_SCALE) : null,
        currency,
      });
    };
    for (let i = 0; i < list.length; i++) {
      const trade = list[i]!;
      const change = scaled(trade.qty, QTY_SCALE);
      const price = scaled(trade.price, MONEY_SCALE);
      if (change > 0n) cost += change * price;
      else if (qty > 0n) cost -= divideRounded(cost * (-change < qty ? -change : qty), qty);
      qty += change;
      if (qty <= 0n) cost = 0n;
      lastPrice = price;
      // One position per date: after the last trade of that date.
      if (list[i + 1]?.date !== trade.date) push(trade.date);
    }
    if (list[list.length - 1]!.date !== today && qty !== 0n) push(today);
  }
  return result;
}
