import { defineTask, queueJob } from '../core/job-queue.ts';
import { inTransaction, sqlOn, type Queryable, type SqlTarget } from '../core/sql.ts';
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
 * SQL: the ids of the transactions fresh transaction `f` may pair with, on the other side (`sign`
 * of their amount; `band` the bounds of their absolute amount, a superset of what the 1% check lets
 * through). In `f`'s currency by amount and date, both read in the index by absolute amount; in
 * another one (only when the family has rates at all) by date. The checks then decide.
 */
function partners(f: string, sign: string, band: string): string {
  const window = `p.date between ${f}.date - ${MAX_DAYS_APART} and ${f}.date + ${MAX_DAYS_APART} and p.amount ${sign} 0`;
  return `
    select p.id from entries p
     where p.family_id = ${f}.family_id and p.entryable_type = 'Transaction' and abs(p.amount) between ${band}
       and ${window} and p.currency = ${f}.currency
    union all
    select p.id from entries p
     where ${anyRateSql(`${f}.family_id`)} and p.family_id = ${f}.family_id and p.entryable_type = 'Transaction'
       and ${window} and p.currency <> ${f}.currency`;
}

/**
 * SQL: whether row version `xmin` was written by a transaction whose id is at or above `since`
 * (a 64-bit id; `next` the snapshot's next one). A row's xmin is the low 32 bits of its writer's
 * id, always less than 2^31 transactions before `next`, so counting back from `next` finds the full
 * id. An older row (frozen ones keep their xmin) may count as fresh: a little work, never a loss.
 */
const writtenSince = (xmin: string, next: string, since: string) =>
  `${next} - ((${next} % 4294967296) - ${xmin}::text::bigint + 4294967296) % 4294967296 >= ${since}`;

/**
 * SQL: the mark a run leaves, from its snapshot: the lowest transaction still running then, or the
 * snapshot's xmax when none was. A transaction of another database of the cluster cannot write
 * entries and is passed over, so that a long one there does not hold the mark back. Those are
 * read from pg_stat_activity before the snapshot (ELSEWHERE, passed in): read during the
 * statement, one that ended meanwhile was no longer there and counted, holding the mark below
 * rows already examined. One that starts after the read counts, but its id is above every row
 * written before the run.
 */
const MARK = `coalesce(
  (select min(x) from pg_snapshot_xip(pg_current_snapshot()) x
    where x::text::bigint % 4294967296 <> all (?::bigint[])),
  pg_snapshot_xmax(pg_current_snapshot()))`;

/** The 32-bit ids of the transactions other databases of the cluster are running now. */
const ELSEWHERE = `select coalesce(array_agg(backend_xid::text::bigint), '{}') as xids
  from pg_stat_activity where datname <> current_database() and backend_xid is not null`;

/**
 * The suggestion run, one statement (one snapshot): the family's transactions that may pair
 * anew since the last run ("fresh": written since its mark, freed or touched by a rate as
 * transfer_suggest_pending says; all of them on the first run), each with the other side's
 * candidates looked up by index; every candidate pair that passes the link checks, neither side in
 * a transfer, the pair never rejected, becomes a suggestion. The mark moves to the lowest
 * transaction still running at this snapshot (MARK): it may commit after this statement, and its
 * rows are at or above the mark, so the next run sees them. Returns how many transactions it examined.
 */
function suggestionRun(): string {
  const checks = Object.values(linkChecks('o', 'i')).join(' and ');
  const free = (entry: string) =>
    `not exists (select 1 from transfers x where x.outflow_entry_id = ${entry}.id)
     and not exists (select 1 from transfers x where x.inflow_entry_id = ${entry}.id)`;
  // Rows go in closest first (dates, then amounts); a side already taken by an earlier row of
  // the same statement is skipped by the unique indexes, so each transaction gets its best match.
  return `
    with mark as (
      select examined_below::text::bigint as since from transfer_suggest_marks where family_id = ?::uuid
    ), pending as (
      delete from transfer_suggest_pending where family_id = ?::uuid returning entry_id, currency, first_date, last_date
    ), clock as (
      select pg_snapshot_xmax(pg_current_snapshot())::text::bigint as next
    ), fresh as materialized (
      select e.id, e.family_id, e.amount, e.currency, e.date from entries e
       where e.family_id = ?::uuid and e.entryable_type = 'Transaction'
         and (not exists (select 1 from mark)
           or ${writtenSince('e.xmin', '(select next from clock)', '(select since from mark)')}
           or e.id in (select entry_id from pending)
           or (e.amount > 0 and exists (select 1 from pending p where p.currency = e.currency
                                          and e.date between p.first_date and p.last_date)))
    ), candidates as (
      select p.id as outflow_id, f.id as inflow_id
        from fresh f cross join lateral (${partners('f', '>', '-f.amount * 0.99 and -f.amount * 1.02')}) p
       where f.amount < 0
      union
      select f.id, p.id
        from fresh f cross join lateral (${partners('f', '<', 'f.amount * 0.99 and f.amount * 1.01')}) p
       where f.amount > 0 and exists (select 1 from mark)
    ), suggested as (
      insert into transfers (id, family_id, outflow_entry_id, inflow_entry_id, status)
      select gen_random_uuid(), i.family_id, o.id, i.id, 'suggested'
        from candidates c join entries o on o.id = c.outflow_id join entries i on i.id = c.inflow_id
       where ${checks} and ${free('i')} and ${free('o')}
         and not exists (select 1 from transfer_rejections r where r.outflow_entry_id = o.id and r.inflow_entry_id = i.id)
       order by abs(o.date - i.date), abs(o.amount + i.amount), o.id, i.id
      on conflict do nothing
      returning 1
    ), marked as (
      insert into transfer_suggest_marks (family_id, examined_below)
      select id, ${MARK} from families where id = ?::uuid
      on conflict (family_id) do update set examined_below = excluded.examined_below
    )
    select (select count(*) from fresh)::int as examined, (select count(*) from suggested)::int as suggested`;
}

/**
 * One suggestion run for a family on `client`, in one transaction: removes suggestions a link or
 * another confirmation overtook (which frees their other sides, see the migration
 * transfer_suggest_marks), then suggests. Runs of one family take turns (a job queued while another
 * runs would otherwise run beside it, and both would move the mark). Returns how many transactions
 * it examined and how many suggestions it added.
 */
export async function suggestTransfers(
  client: Queryable,
  familyId: string,
): Promise<{ examined: number; suggested: number }> {
  return inTransaction(client, async (run) => {
    await run(`select pg_advisory_xact_lock(hashtextextended('transfer_suggest:' || ?::text, 0))`, [familyId]);
    await run(
      `delete from transfers s where s.family_id = ?::uuid and s.status = 'suggested' and exists (
         select 1 from transfers c where c.status = 'confirmed' and (c.outflow_entry_id in (s.outflow_entry_id, s.inflow_entry_id)
           or c.inflow_entry_id in (s.outflow_entry_id, s.inflow_entry_id)))`,
      [familyId],
    );
    const [elsewhere] = await run<{ xids: string[] }>(ELSEWHERE);
    const [counts] = await run<{ examined: number; suggested: number }>(suggestionRun(), [
      familyId,
      familyId,
      familyId,
      elsewhere!.xids,
      familyId,
    ]);
    return counts!;
  });
}

/** The `transfer_suggest` task: one run for the family. Running it twice is harmless. */
export const transferSuggestTask = defineTask('transfer_suggest', ['family_id'], async ({ family_id }, helpers) => {
  await helpers.withPgClient((client) => suggestTransfers(client, family_id));
});
