/** One trade as the position calculation reads it (quantity signed: a sale is negative). */
export interface TradeFact {
  securityId: string;
  date: string;
  qty: number;
  price: number;
  currency: string;
}

/** A known market price of a security on a date. */
export interface PriceFact {
  securityId: string;
  date: string;
  price: number;
}

/** A position in one security at the end of a date. */
export interface Position {
  securityId: string;
  date: string;
  qty: number;
  price: number;
  amount: number;
  /** Average cost per unit of what is held; null when nothing is held. */
  avgCost: number | null;
  currency: string;
}

/** Decimal places kept by the columns (`numeric(24,8)` quantities, `numeric(19,4)` money). */
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

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
    const priceOn = (date: string, lastTradePrice: number) => {
      while (marketIndex + 1 < market.length && market[marketIndex + 1]!.date <= date) marketIndex++;
      return marketIndex >= 0 ? market[marketIndex]!.price : lastTradePrice;
    };
    let qty = 0;
    let cost = 0;
    let lastPrice = 0;
    const currency = list[list.length - 1]!.currency;
    const push = (date: string) => {
      const price = priceOn(date, lastPrice);
      const held = round(qty, 8);
      result.push({
        securityId,
        date,
        qty: held,
        price: round(price, 4),
        amount: round(held * price, 4),
        avgCost: held > 0 ? round(cost / held, 4) : null,
        currency,
      });
    };
    for (let i = 0; i < list.length; i++) {
      const trade = list[i]!;
      if (trade.qty > 0) cost += trade.qty * trade.price;
      else if (qty > 0) cost -= (Math.min(-trade.qty, qty) / qty) * cost;
      qty += trade.qty;
      if (qty <= 1e-9) cost = 0;
      lastPrice = trade.price;
      // One position per date: after the last trade of that date.
      if (list[i + 1]?.date !== trade.date) push(trade.date);
    }
    if (list[list.length - 1]!.date !== today && round(qty, 8) !== 0) push(today);
  }
  return result;
}
