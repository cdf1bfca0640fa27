import type { AccountType } from '../accounts/account.entity.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { formatMoney, toMinorUnits, trimDecimal } from '../core/money/money.ts';

/** A holding as read by the holding queries, with its account and security. */
export interface HoldingRow {
  id: string;
  date: string;
  qty: string;
  price: string;
  amount: string;
  avg_cost: string | null;
  currency: string;
  created_at: Date | string;
  updated_at: Date | string;
  account_id: string;
  account_name: string;
  account_type: AccountType;
  security_id: string;
  security_ticker: string;
  security_name: string | null;
}

/** The API's holding object. */
export function holdingView(row: HoldingRow) {
  return {
    id: row.id,
    date: row.date,
    qty: trimDecimal(row.qty),
    price: formatMoney(row.price, row.currency),
    price_cents: toMinorUnits(row.price, row.currency),
    amount: formatMoney(row.amount, row.currency),
    amount_cents: toMinorUnits(row.amount, row.currency),
    currency: row.currency,
    avg_cost: row.avg_cost === null ? null : formatMoney(row.avg_cost, row.currency),
    account: { id: row.account_id, name: row.account_name, account_type: row.account_type },
    security: { id: row.security_id, ticker: row.security_ticker, name: row.security_name },
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
