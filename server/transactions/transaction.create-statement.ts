import type { Statement } from '../core/sql.ts';
import { accountSyncCall } from '../accounts/account-sync.ts';
import { rulePicks, type RuleTargets } from '../rules/transaction-rules.ts';
import { INPUT_RECORDS, WRITE_INPUT, inputRecords, type TransactionRecord } from './transaction.bulk-insert.ts';

/**
 * A new transaction in one statement, run outside a transaction block: it locks the account first
 * (the lock order of accounts/account-lock.ts), lets the family's rules fill in what the request
 * left out (`fill`), writes the details, taggings and entry, and queues the account's sync. The
 * account is then locked for one statement, with no BEGIN and COMMIT round trips while creates to
 * it wait (bench/README.md). A null currency is the account's. Nothing is written when the account
 * is not the family's or is being deleted (no row comes back), nor when the amount is finer than its currency's minor
 * unit or a rate is given for the account's own currency (`queued` is 0: the caller says why). The
 * same statement serves families with and without rules: without any, the rule CTEs read an empty
 * index range.
 */
export function transactionCreateStatement(
  record: TransactionRecord,
  fill: RuleTargets,
): { statement: Statement; id: string } {
  const { json, ids } = inputRecords([record]);
  const picks = rulePicks(record.familyId);
  const sync = accountSyncCall(record.accountId);
  // The last line reads `queued` so that it runs: PostgreSQL skips a SELECT in WITH that nothing reads.
  const text = `
    with locked as (
      select a.id, a.currency::text as account_currency from accounts a
       where a.id = ? and a.family_id = ? and a.status <> 'pending_deletion' for no key update
    ), given as (
      select r.*, coalesce(r.currency, l.account_currency) as final_currency from ${INPUT_RECORDS}, locked l
       where r.amount = round(r.amount, currency_minor_digits(coalesce(r.currency, l.account_currency)))
         and (r.exchange_rate is null or coalesce(r.currency, l.account_currency) <> l.account_currency)
    ), targets as (
      select detail_id as id, name, date from given
    ), ${picks.text}, input as (
      select g.entry_id, g.detail_id, g.family_id, g.account_id, g.amount, g.final_currency as currency, g.date, g.name,
        g.notes, g.created_at, g.import_id, g.exchange_rate, g.external_id, g.source,
        case when ?::boolean then coalesce(g.category_id, p.category_id) else g.category_id end as category_id,
        case when ?::boolean then coalesce(g.merchant_id, p.merchant_id) else g.merchant_id end as merchant_id,
        case when ?::boolean and cardinality(g.tag_ids) = 0 then coalesce(p.tag_ids, g.tag_ids) else g.tag_ids end
          as tag_ids
      from given g left join picked p on p.transaction_id = g.detail_id
    ), ${WRITE_INPUT}, queued as (
      select ${sync.text} as job from locked l where exists (select 1 from given)
    )
    select l.account_currency, (select count(*) from queued)::int as queued from locked l`;
  const params = [
    record.accountId,
    record.familyId,
    json,
    ...picks.params,
    fill.category,
    fill.merchant,
    fill.tags,
    ...sync.params,
  ];
  return { statement: { text, params }, id: ids[0]! };
}
