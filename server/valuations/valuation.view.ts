import type { AccountType } from '../accounts/account.entity.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { formatMoney, toMinorUnits } from '../core/money/money.ts';

/** A valuation as read by the valuation queries: entry, details and account. */
export interface ValuationRow {
  id: string;
  date: string;
  amount: string;
  currency: string;
  notes: string | null;
  kind: string;
  created_at: Date | string;
  updated_at: Date | string;
  account_id: string;
  account_name: string;
  account_type: AccountType;
}

/** The API's valuation object: the balance the account had on the date. */
export function valuationView(row: ValuationRow) {
  return {
    id: row.id,
    date: row.date,
    amount: formatMoney(row.amount, row.currency),
    amount_cents: toMinorUnits(row.amount, row.currency),
    currency: row.currency,
    notes: row.notes,
    kind: row.kind,
    account: { id: row.account_id, name: row.account_name, account_type: row.account_type },
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
