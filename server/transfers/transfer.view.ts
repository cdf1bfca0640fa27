import type { AccountType } from '../accounts/account.entity.ts';
import { absolute, formatMoney, toMinorUnits } from '../core/money/money.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { transferKind, type TransferStatus } from './transfer-rule.ts';

/** One side of a transfer as read by the transfer queries. */
interface SideRow {
  id: string;
  date: string;
  amount: string;
  currency: string;
  account_id: string;
  account_name: string;
  account_type: AccountType;
}

/** A transfer as read by the transfer queries. */
export interface TransferRow {
  id: string;
  status: TransferStatus;
  notes: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  outflow: SideRow;
  inflow: SideRow;
}

/** A side shows its transaction's stored sign, as the transaction itself does (inflow negative). */
function sideView(side: SideRow) {
  return {
    id: side.id,
    date: side.date,
    amount: formatMoney(side.amount, side.currency),
    amount_cents: toMinorUnits(absolute(side.amount), side.currency),
    currency: side.currency,
    account: { id: side.account_id, name: side.account_name, account_type: side.account_type },
  };
}

/** The API's transfer object: its date and amount are the outflow's. */
export function transferView(row: TransferRow) {
  const outflow = sideView(row.outflow);
  return {
    id: row.id,
    status: row.status,
    kind: transferKind(row.inflow.account_type),
    date: outflow.date,
    amount: outflow.amount,
    amount_cents: outflow.amount_cents,
    currency: outflow.currency,
    outflow_transaction: outflow,
    inflow_transaction: sideView(row.inflow),
    notes: row.notes,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
