import type { AccountType } from '../accounts/account.entity.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { jsonInteger } from '../core/exact-json.ts';
import { formatMoney, magnitude, minorDigits, minorUnits, trimDecimal } from '../core/money/money.ts';
import { fromUnits, productUnits } from '../core/money/decimal-math.ts';
import { classify } from '../core/money/signed-amount.ts';
import { transactionTransferView, type TransferMemberRow } from '../transfers/transfer-membership.ts';

/** A transaction as read by the transaction queries: entry, details and what they point at. */
export interface TransactionRow {
  id: string;
  date: string;
  amount: string;
  currency: string;
  name: string;
  notes: string | null;
  external_id: string | null;
  source: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  account_id: string;
  account_name: string;
  account_type: AccountType;
  account_currency: string;
  /** The rate into the account's currency: null when the currencies match or none is known. */
  exchange_rate: string | null;
  category_id: string | null;
  category_name: string | null;
  category_color: string | null;
  category_icon: string | null;
  merchant_id: string | null;
  merchant_name: string | null;
  tags: { id: string; name: string; color: string }[];
  /** The confirmed transfer it is in, or null. */
  transfer: TransferMemberRow | null;
}

/** The amount in the account's currency, or null when no rate is known (docs/money.md#currencies). */
function accountAmount(row: TransactionRow) {
  let amount = row.amount;
  if (row.currency !== row.account_currency) {
    if (row.exchange_rate === null) return null;
    amount = fromUnits(productUnits([row.amount, row.exchange_rate], minorDigits(row.account_currency)));
  }
  const cents = minorUnits(amount, row.account_currency);
  return {
    amount: formatMoney(amount, row.account_currency),
    amount_cents: jsonInteger(magnitude(cents)),
    signed_amount_cents: jsonInteger(-cents),
    currency: row.account_currency,
  };
}

/** The API's transaction object. */
export function transactionView(row: TransactionRow) {
  const cents = minorUnits(row.amount, row.currency);
  return {
    id: row.id,
    date: row.date,
    // The stored sign, as the reference renders it: clients read the direction from it (api-decisions.md#response-fields).
    amount: formatMoney(row.amount, row.currency),
    amount_cents: jsonInteger(magnitude(cents)),
    // From the household's side (income positive), unlike the stored sign.
    signed_amount_cents: jsonInteger(-cents),
    currency: row.currency,
    exchange_rate: row.exchange_rate === null ? null : trimDecimal(row.exchange_rate),
    account_amount: accountAmount(row),
    name: row.name,
    notes: row.notes,
    external_id: row.external_id,
    source: row.source,
    classification: row.transfer ? ('transfer' as const) : classify(row.amount),
    transfer: transactionTransferView(row.transfer),
    account: { id: row.account_id, name: row.account_name, account_type: row.account_type },
    category: row.category_id
      ? { id: row.category_id, name: row.category_name!, color: row.category_color!, icon: row.category_icon }
      : null,
    merchant: row.merchant_id ? { id: row.merchant_id, name: row.merchant_name! } : null,
    tags: row.tags,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
