import { defineTask, queueJob } from '../core/job-queue.ts';
import { inTransaction, sqlOn, type SqlTarget } from '../core/sql.ts';
import { MAX_DAYS_APART, anyRateSql, linkChecks } from './transfer-rule.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Pair a family's transactions that look like transfers into suggestions. */
    transfer_suggest: { family_id: string };
  }
}

/**
 * Queues the suggestion job of the family of `accountId` on `target`'s connection. The account
 * sync calls it as it ends: every write and import already queues a sync, so suggestions follow
 * them without a statement more on the write path. The job key keeps one pending job per family.
 */
export async function queueTransferSuggestion(target: SqlTarget, accountId: string): Promise<void> {
  const [account] = await sqlOn(target)<{ family_id: string }>('select family_id from accounts where id = ?::uuid', [
    accountId,
  ]);
  if (!account) return;
  await queueJob(
    target,
    'transfer_suggest',
    { family_id: account.family_id },
    { jobKey: `transfer_suggest:${account.family_id}` },
  );
}

/**
 * Every pair of the family that passes the link checks, neither side in a transfer, the pair never
 * rejected. Each inflow looks up its outflows by index: in its own currency by amount (within 1%
 * the outflow lies between 0.99 and 1.02 times the inflow), in another only when the family has
 * rates at all, by date. The checks then decide.
 */
function suggestionInsert(): string {
  const checks = Object.values(linkChecks('o', 'i')).join(' and ');
  const free = (entry: string) =>
    `not exists (select 1 from transfers x where x.outflow_entry_id = ${entry}.id)
     and not exists (select 1 from transfers x where x.inflow_entry_id = ${entry}.id)`;
  const columns = 'o.id, o.family_id, o.account_id, o.amount, o.currency, o.date';
  // Rows go in closest first (dates, then amounts); a side already taken by an earlier row of
  // the same statement is skipped by the unique indexes, so each transaction gets its best match.
  return `
    insert into transfers (id, family_id, outflow_entry_id, inflow_entry_id, status)
    select gen_random_uuid(), i.family_id, o.id, i.id, 'suggested'
    from entries i
    cross join lateral (
      select ${columns} from entries o
      where o.family_id = i.family_id and o.entryable_type = 'Transaction' and o.currency = i.currency
        and abs(o.amount) between -i.amount * 0.99 and -i.amount * 1.02
      union all
      select ${columns} from entries o
      where ${anyRateSql('i.family_id')} and o.family_id = i.family_id and o.entryable_type = 'Transaction'
        and o.currency <> i.currency and o.date between i.date - ${MAX_DAYS_APART} and i.date + ${MAX_DAYS_APART}
    ) o
    where i.family_id = ?::uuid and i.entryable_type = 'Transaction' and i.amount < 0 and ${checks}
      and ${free('i')} and ${free('o')}
      and not exists (select 1 from transfer_rejections r where r.outflow_entry_id = o.id and r.inflow_entry_id = i.id)
    order by abs(o.date - i.date), abs(o.amount + i.amount), o.id, i.id
    on conflict do nothing`;
}

/**
 * The `transfer_suggest` task: one family, in one transaction. Runs of one family take turns (a
 * job queued while another runs would otherwise run beside it), and a run only adds suggestions,
 * so running it twice is harmless.
 */
export const transferSuggestTask = defineTask('transfer_suggest', ['family_id'], async ({ family_id }, helpers) => {
  await helpers.withPgClient((client) =>
    inTransaction(client, async (run) => {
      await run(`select pg_advisory_xact_lock(hashtextextended('transfer_suggest:' || ?::text, 0))`, [family_id]);
      // Suggestions a link or another confirmation overtook can no longer be confirmed.
      await run(
        `delete from transfers s where s.family_id = ?::uuid and s.status = 'suggested' and exists (
           select 1 from transfers c where c.status = 'confirmed' and (c.outflow_entry_id in (s.outflow_entry_id, s.inflow_entry_id)
             or c.inflow_entry_id in (s.outflow_entry_id, s.inflow_entry_id)))`,
        [family_id],
      );
      await run(suggestionInsert(), [family_id]);
    }),
  );
});
