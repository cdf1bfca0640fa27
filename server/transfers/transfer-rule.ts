import type { AccountType } from '../accounts/account.entity.ts';

/**
 * The rules of a transfer, defined once: what it is called, what kind it is, and which two
 * transactions may be one (a link asks for it, the suggestion job searches for it).
 */

export type TransferStatus = 'suggested' | 'confirmed';

export type TransferKind = 'credit_card_payment' | 'loan_payment' | 'investment_contribution' | 'funds_movement';

/** A transfer's kind, by the type of the account that receives the money. */
export function transferKind(receiving: AccountType): TransferKind {
  switch (receiving) {
    case 'credit_card':
      return 'credit_card_payment';
    case 'loan':
      return 'loan_payment';
    case 'investment':
    case 'crypto':
      return 'investment_contribution';
    default:
      return 'funds_movement';
  }
}

/** The default names of a new transfer's two transactions: money paid to a card or loan is a payment. */
export function transferNames(
  from: { name: string },
  to: { name: string; account_type: AccountType },
): { outflow: string; inflow: string } {
  const kind = transferKind(to.account_type);
  const word = kind === 'credit_card_payment' || kind === 'loan_payment' ? 'Payment' : 'Transfer';
  return { outflow: `${word} to ${to.name}`, inflow: `${word} from ${from.name}` };
}

/** How many days an outflow and the inflow it paid may lie apart (bank transfers take a few days). */
export const MAX_DAYS_APART = 4;

/**
 * SQL: the family's rate converting an amount in currency `from` into currency `to` on `date` (SQL
 * expressions), null when none is known; same currency 1. The one rate rule is the database's
 * `exchange_rate_on` (migration Migration20261129000000_money): nothing is guessed.
 */
export function rateSql(family: string, from: string, to: string, date: string): string {
  // Spelled out for one currency: the function is not inlined, and a call per pair of a search costs.
  return `(case when ${from} = ${to} then 1::numeric else exchange_rate_on(${family}, ${from}, ${to}, ${date}) end)`;
}

/** SQL: whether family `family` has any exchange rate, without which no two currencies convert. */
export function anyRateSql(family: string): string {
  return `exists (select 1 from exchange_rates r where r.family_id = ${family})`;
}

/** The checks a pair of transactions must pass to be one transfer, and what each says when it fails. */
export const LINK_CHECKS = {
  different_accounts: 'The two transactions must be on different accounts',
  is_outflow: 'outflow_transaction_id must name an outflow (money out)',
  is_inflow: 'inflow_transaction_id must name an inflow (money in)',
  close_dates: `The two transactions must be at most ${MAX_DAYS_APART} days apart`,
  amounts_agree: 'The two amounts must agree within 1% once converted',
} as const;

export type LinkCheck = keyof typeof LINK_CHECKS;

/**
 * SQL: each check of LINK_CHECKS on outflow entry `o` and inflow entry `i` (aliases): different
 * accounts, an outflow (stored amount above 0) and an inflow (below 0), at most MAX_DAYS_APART
 * days apart (written so that an index on `o`'s date serves it), and the outflow converted at its
 * date's rate within 1% (of the converted outflow) of the inflow; null when no rate is known.
 */
export function linkChecks(o: string, i: string): Record<LinkCheck, string> {
  const rate = rateSql(`${o}.family_id`, `${o}.currency`, `${i}.currency`, `${o}.date`);
  return {
    different_accounts: `${o}.account_id <> ${i}.account_id`,
    is_outflow: `${o}.amount > 0`,
    is_inflow: `${i}.amount < 0`,
    close_dates: `${o}.date between ${i}.date - ${MAX_DAYS_APART} and ${i}.date + ${MAX_DAYS_APART}`,
    amounts_agree: `abs(${o}.amount * ${rate} + ${i}.amount) * 100 <= ${o}.amount * ${rate}`,
  };
}
