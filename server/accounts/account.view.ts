import { formatMoney, toMinorUnits } from '../core/money/money.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import type { AccountStatus, AccountType } from './account.entity.ts';

/** Account types whose balance is owed rather than owned. */
const LIABILITY_TYPES = new Set<AccountType>(['credit_card', 'loan', 'other_liability']);

export function accountClassification(type: AccountType): 'asset' | 'liability' {
  return LIABILITY_TYPES.has(type) ? 'liability' : 'asset';
}

/** An accounts row as read by the account queries. */
export interface AccountRow {
  id: string;
  name: string;
  balance: string;
  cash_balance: string;
  holdings_value: string;
  balance_complete: boolean;
  missing_exchange_rates: { from: string; to: string; date: string }[];
  currency: string;
  account_type: AccountType;
  subtype: string | null;
  status: AccountStatus;
  sync_error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The API's account object. */
export function accountView(row: AccountRow) {
  return {
    id: row.id,
    name: row.name,
    balance: formatMoney(row.balance, row.currency),
    balance_cents: toMinorUnits(row.balance, row.currency),
    cash_balance: formatMoney(row.cash_balance, row.currency),
    cash_balance_cents: toMinorUnits(row.cash_balance, row.currency),
    holdings_value: formatMoney(row.holdings_value, row.currency),
    holdings_value_cents: toMinorUnits(row.holdings_value, row.currency),
    balance_complete: row.balance_complete,
    missing_exchange_rates: row.missing_exchange_rates,
    currency: row.currency,
    classification: accountClassification(row.account_type),
    account_type: row.account_type,
    subtype: row.subtype,
    status: row.status,
    sync_error: row.sync_error,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
