import type { Statement } from '../db/sql.ts';
import { accountSyncCall } from '../jobs/job-queue.ts';
import { INPUT_RECORDS, WRITE_INPUT, inputRecords, type TransactionRecord } from './transaction.bulk-insert.ts';

/**
 * A new transaction in one statement, run outside a transaction block: it locks the account first
 * (the lock order of write-unit.ts), writes the details, taggings and entry, and queues the
 * account's sync. The account is then locked for one statement, with no BEGIN and COMMIT round
 * trips while creates to it wait (bench/README.md). A null currency is the family's. Nothing is
 * written when the account is not the family's (no row comes back) or when the family has active
 * rules, which fill in what the request left out in a transaction of their own (`has_rules`).
 */
export function transactionCreateStatement(record: TransactionRecord): { statement: Statement; id: string } {
  const { json, ids } = inputRecords([record]);
  const sync = accountSyncCall(record.accountId);
  // The last line reads `queued` so that it runs: PostgreSQL skips a SELECT in WITH that nothing reads.
  const text = `
    with locked as (
      select a.id, f.currency as family_currency,
        exists (select 1 from rules r where r.family_id = a.family_id and r.active) as has_rules
      from accounts a join families f on f.id = a.family_id
      where a.id = ? and a.family_id = ? for update of a
    ), input as (
      select r.entry_id, r.detail_id, r.family_id, r.account_id, r.amount,
        coalesce(r.currency, l.family_currency) as currency, r.date, r.name, r.notes, r.category_id,
        r.merchant_id, r.created_at, r.tag_ids
      from ${INPUT_RECORDS}, locked l where not l.has_rules
    ), ${WRITE_INPUT}, queued as (
      select ${sync.text} as job from locked l where not l.has_rules
    )
    select l.has_rules, (select count(*) from queued)::int as queued from locked l`;
  return { statement: { text, params: [record.accountId, record.familyId, json, ...sync.params] }, id: ids[0]! };
}
