import type { AccountType } from '../accounts/account.entity.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { jsonInteger } from '../core/exact-json.ts';
import { formatMoney, isNegative, magnitude, minorUnits, toMinorUnits, trimDecimal } from '../core/money/money.ts';

/** A trade as read by the trade queries: entry, details, account and security. */
export interface TradeRow {
  id: string;
  date: string;
  amount: string;
  currency: string;
  name: string;
  notes: string | null;
  qty: string;
  price: string;
  investment_activity_label: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  account_id: string;
  account_name: string;
  account_type: AccountType;
  security_id: string | null;
  security_ticker: string | null;
  security_name: string | null;
}

/** The API's trade object: quantity and amount signed as stored (a sale is negative), `type` the direction. */
export function tradeView(row: TradeRow) {
  return {
    id: row.id,
    date: row.date,
    amount: formatMoney(row.amount, row.currency),
    amount_cents: jsonInteger(magnitude(minorUnits(row.amount, row.currency))),
    currency: row.currency,
    name: row.name,
    notes: row.notes,
    qty: trimDecimal(row.qty),
    price: formatMoney(row.price, row.currency),
    price_cents: toMinorUnits(row.price, row.currency),
    type: isNegative(row.qty) ? ('sell' as const) : ('buy' as const),
    investment_activity_label: row.investment_activity_label,
    account: { id: row.account_id, name: row.account_name, account_type: row.account_type },
    security: row.security_id ? { id: row.security_id, ticker: row.security_ticker!, name: row.security_name } : null,
    category: null,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
