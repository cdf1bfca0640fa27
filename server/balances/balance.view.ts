import type { AccountType } from '../accounts/account.entity.ts';
import { formatMoney, toMinorUnits } from '../core/money/money.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import type { MissingRate } from './daily-balances.ts';

/** A daily balance as read by the balance queries, with its account. */
export interface BalanceRow {
  id: string;
  date: string;
  currency: string;
  balance: string;
  cash_balance: string;
  holdings_value: string;
  inflows: string;
  outflows: string;
  income: string;
  expenses: string;
  complete: boolean;
  missing_exchange_rates: MissingRate[];
  created_at: Date | string;
  updated_at: Date | string;
  account_id: string;
  account_name: string;
  account_type: AccountType;
}

/** The API's daily balance object. */
export function balanceView(row: BalanceRow) {
  const money = (amount: string) => [formatMoney(amount, row.currency), toMinorUnits(amount, row.currency)] as const;
  const [balance, balanceCents] = money(row.balance);
  const [cash, cashCents] = money(row.cash_balance);
  const [holdings, holdingsCents] = money(row.holdings_value);
  const [inflows, inflowsCents] = money(row.inflows);
  const [outflows, outflowsCents] = money(row.outflows);
  const [income, incomeCents] = money(row.income);
  const [expenses, expensesCents] = money(row.expenses);
  return {
    id: row.id,
    date: row.date,
    account: { id: row.account_id, name: row.account_name, account_type: row.account_type },
    currency: row.currency,
    balance,
    balance_cents: balanceCents,
    cash_balance: cash,
    cash_balance_cents: cashCents,
    holdings_value: holdings,
    holdings_value_cents: holdingsCents,
    inflows,
    inflows_cents: inflowsCents,
    outflows,
    outflows_cents: outflowsCents,
    income,
    income_cents: incomeCents,
    expenses,
    expenses_cents: expensesCents,
    complete: row.complete,
    missing_exchange_rates: row.missing_exchange_rates,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
