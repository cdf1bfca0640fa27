import { WRITE_INPUT } from '../../transactions/transaction.bulk-insert.ts';
import { applyRulesToImport } from '../../rules/transaction-rules.ts';
import { ImportDataError, inChunks, requireRowAccounts, type ImportJob, type WriteOutcome } from './import-writer.ts';
import { precisionMessage } from '../../core/money/decimal-input.ts';

/**
 * The accounts rows go into: the import's own, else the account each row names (by name, any
 * case). A TransactionImport names existing accounts only; another application's export
 * (ExternalImport) brings its accounts along, so missing ones are created (as the import's).
 */
async function resolveAccounts(job: ImportJob, createMissing: boolean): Promise<void> {
  if (job.accountId) return;
  if (createMissing) {
    await job.run(
      `insert into accounts (id, family_id, name, account_type, currency, import_id)
       select gen_random_uuid(), ?::uuid, n.name, 'depository', coalesce(n.currency, ?), ?::uuid
       from (select distinct on (lower("values"->>'account')) "values"->>'account' as name, "values"->>'currency' as currency
             from import_rows where import_id = ?::uuid order by lower("values"->>'account'), row_number) n
       on conflict (family_id, lower(name)) do nothing`,
      [job.familyId, job.familyCurrency, job.id, job.id],
    );
  }
  await requireRowAccounts(job);
}

/**
 * An amount finer than the minor unit of its currency (the row's, else its account's) is refused, as
 * the transaction service refuses it: rounding it would lose money.
 */
async function checkPrecision(job: ImportJob): Promise<void> {
  const [fine] = await job.run<{ row_number: number; currency: string }>(
    `select r.row_number, c.currency from import_rows r
       cross join lateral (
         select coalesce(r."values"->>'currency', (select a.currency::text from accounts a
           where a.id = ?::uuid or (?::uuid is null and a.family_id = ?::uuid and lower(a.name) = lower(r."values"->>'account'))
           limit 1)) as currency
       ) c
      where r.import_id = ?::uuid and c.currency is not null
        and (r."values"->>'amount')::numeric <> round((r."values"->>'amount')::numeric, currency_minor_digits(c.currency))
      order by r.row_number limit 1`,
    [job.accountId, job.accountId, job.familyId, job.id],
  );
  if (fine) {
    throw new ImportDataError(`Row ${fine.row_number}: ${precisionMessage('amount', fine.currency)}`);
  }
}

/** Categories and tags the rows name, created when the family has none of that name (any case). */
async function createNamedRecords(job: ImportJob): Promise<void> {
  await job.run(
    `insert into categories (id, family_id, name, color, import_id)
     select gen_random_uuid(), ?::uuid, n.name, '#6172F3', ?::uuid
     from (select distinct on (lower("values"->>'category')) "values"->>'category' as name
           from import_rows where import_id = ?::uuid and "values"->>'category' is not null
           order by lower("values"->>'category'), row_number) n
     on conflict (family_id, lower(name)) do nothing`,
    [job.familyId, job.id, job.id],
  );
  await job.run(
    `insert into tags (id, family_id, name, color, import_id)
     select gen_random_uuid(), ?::uuid, n.name, '#e99537', ?::uuid
     from (select distinct on (lower(t.name)) t.name
           from import_rows r cross join lateral jsonb_array_elements_text(r."values"->'tags') as t(name)
           where r.import_id = ?::uuid order by lower(t.name), r.row_number) n
     on conflict (family_id, lower(name)) do nothing`,
    [job.familyId, job.id, job.id],
  );
}

/**
 * Writes the transactions of a TransactionImport or ExternalImport: set-based statements over the
 * staged rows, 10,000 rows at a time, each row one entry and one transaction with its category
 * and tags. Identical rows are separate transactions (docs/imports.md#writing).
 */
export async function writeTransactions(job: ImportJob, external: boolean): Promise<WriteOutcome> {
  await resolveAccounts(job, external);
  await checkPrecision(job);
  await createNamedRecords(job);
  const imported = await inChunks(job, async (from, to) => {
    const [written] = await job.run<{ n: number }>(
      `with src as materialized (
         select r."values" as v, gen_random_uuid() as entry_id, gen_random_uuid() as tx_id,
           coalesce(?::uuid, (select a.id from accounts a
             where a.family_id = ?::uuid and lower(a.name) = lower(r."values"->>'account'))) as account_id
         from import_rows r where r.import_id = ?::uuid and r.row_number between ? and ?
       ), input as (
         select s.entry_id, s.tx_id as detail_id, ?::uuid as family_id, s.account_id,
           (s.v->>'amount')::numeric as amount, coalesce(s.v->>'currency', a.currency) as currency,
           (s.v->>'date')::date as date, s.v->>'name' as name, s.v->>'notes' as notes, c.id as category_id,
           null::uuid as merchant_id, now() as created_at,
           array(select distinct t.id from jsonb_array_elements_text(s.v->'tags') as n(name)
             join tags t on t.family_id = ?::uuid and lower(t.name) = lower(n.name)) as tag_ids,
           ?::uuid as import_id, null::numeric as exchange_rate, null::text as external_id, null::text as source
         from src s join accounts a on a.id = s.account_id
         left join categories c on c.family_id = ?::uuid and lower(c.name) = lower(s.v->>'category')
       ), ${WRITE_INPUT}
       select count(*)::int as n from written`,
      [job.accountId, job.familyId, job.id, from, to, job.familyId, job.familyId, job.id, job.familyId],
    );
    return written!.n;
  });
  // Rules of the family fill in what the rows leave empty (category, merchant, tags).
  await applyRulesToImport(job.run, job.id, job.familyId);
  const accounts = await job.run<{ account_id: string }>(
    'select distinct account_id from entries where import_id = ?::uuid',
    [job.id],
  );
  return { imported, accounts: accounts.map((row) => row.account_id) };
}
