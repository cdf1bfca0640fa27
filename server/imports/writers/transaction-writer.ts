import { inputTable, writesFromTable } from '../../transactions/transaction.bulk-insert.ts';
import { applyRulesToImport } from '../../rules/transaction-rules.ts';
import { ImportDataError, requireRowAccounts, type ImportJob, type RangeWriter } from './import-writer.ts';
import type { ImportType } from '../import-configuration.ts';
import { precisionMessage } from '../../core/money/decimal-input.ts';

/**
 * The accounts rows go into: the import's own, else the account each row names (by name, any
 * case). A TransactionImport names existing accounts only; another application's export
 * (ExternalImport) brings its accounts along, so missing ones are created (as the import's).
 */
async function resolveAccounts(job: ImportJob, createMissing: boolean, from: number, to: number): Promise<void> {
  if (job.accountId) return;
  if (createMissing) {
    await job.run(
      `insert into accounts (id, family_id, name, account_type, currency, import_id)
       select gen_random_uuid(), ?::uuid, n.name, 'depository', coalesce(n.currency, ?), ?::uuid
       from (select distinct on (lower("values"->>'account')) "values"->>'account' as name, "values"->>'currency' as currency
             from import_rows where import_id = ?::uuid and row_number between ? and ?
             order by lower("values"->>'account'), row_number) n
       on conflict (family_id, lower(name)) do nothing`,
      [job.familyId, job.familyCurrency, job.id, job.id, from, to],
    );
  }
  await requireRowAccounts(job, from, to);
}

/** Categories and tags the rows `from`..`to` name, created when the family has none of that name (any case). */
async function createNamedRecords(job: ImportJob, from: number, to: number): Promise<void> {
  await job.run(
    `insert into categories (id, family_id, name, color, import_id)
     select gen_random_uuid(), ?::uuid, n.name, '#6172F3', ?::uuid
     from (select distinct on (lower("values"->>'category')) "values"->>'category' as name
           from import_rows where import_id = ?::uuid and row_number between ? and ? and "values"->>'category' is not null
           order by lower("values"->>'category'), row_number) n
     on conflict (family_id, lower(name)) do nothing`,
    [job.familyId, job.id, job.id, from, to],
  );
  await job.run(
    `insert into tags (id, family_id, name, color, import_id)
     select gen_random_uuid(), ?::uuid, n.name, '#e99537', ?::uuid
     from (select distinct on (lower(t.name)) t.name
           from import_rows r cross join lateral jsonb_array_elements_text(r."values"->'tags') as t(name)
           where r.import_id = ?::uuid and r.row_number between ? and ? order by lower(t.name), r.row_number) n
     on conflict (family_id, lower(name)) do nothing`,
    [job.familyId, job.id, job.id, from, to],
  );
}

/** Where a chunk's rows wait, typed, to be written (transaction.bulk-insert.ts). */
const INPUT = 'import_input';
const WRITES = writesFromTable(INPUT);

/**
 * Fills INPUT with the staged rows `from`..`to`: each with its account (the import's, else the one
 * it names), its currency (its own, else its account's), its category and its tags by name.
 */
async function fillInput(job: ImportJob, from: number, to: number): Promise<void> {
  await job.run(`truncate ${INPUT}`);
  await job.run(
    `insert into ${INPUT} (row_number, entry_id, detail_id, family_id, account_id, amount, currency, date, name, notes,
       category_id, merchant_id, created_at, tag_ids, import_id, exchange_rate, external_id, source)
     select r.row_number, gen_random_uuid(), gen_random_uuid(), ?::uuid, a.id, (r.v->>'amount')::numeric,
       coalesce(r.v->>'currency', a.currency), (r.v->>'date')::date, r.v->>'name', r.v->>'notes', c.id, null, now(),
       array(select distinct t.id from jsonb_array_elements_text(r.v->'tags') as n(name)
         join tags t on t.family_id = ?::uuid and lower(t.name) = lower(n.name)),
       ?::uuid, null, null, null
     from (
       select s.row_number, s."values" as v, coalesce(?::uuid, (select a.id from accounts a
         where a.family_id = ?::uuid and lower(a.name) = lower(s."values"->>'account'))) as account_id
       from import_rows s where s.import_id = ?::uuid and s.row_number between ? and ?
     ) r
     join accounts a on a.id = r.account_id
     left join categories c on c.family_id = ?::uuid and lower(c.name) = lower(r.v->>'category')`,
    [job.familyId, job.familyId, job.id, job.accountId, job.familyId, job.id, from, to, job.familyId],
  );
}

/**
 * An amount finer than the minor unit of its currency is refused, as the transaction service
 * refuses it: rounding it would lose money. Checked on each range before it is written, ranges in
 * row order, so the first such row of the import is the one named.
 */
async function checkPrecision(job: ImportJob): Promise<void> {
  const [fine] = await job.run<{ row_number: number; currency: string }>(
    `select row_number, currency from ${INPUT}
     where amount <> round(amount, currency_minor_digits(currency)) order by row_number limit 1`,
  );
  if (fine) {
    throw new ImportDataError(`Row ${fine.row_number}: ${precisionMessage('amount', fine.currency)}`);
  }
}

/**
 * Writes the transactions of a TransactionImport or ExternalImport range by range: each range's
 * accounts, categories and tags first, then its rows as typed input, then set-based statements,
 * each row one entry and one transaction with its category and tags. Identical rows are separate
 * transactions (docs/imports.md#writing).
 */
export function transactionWriter(external: boolean): RangeWriter {
  return {
    begin: async (job) => {
      await job.run(inputTable(INPUT, 'row_number int'));
    },
    range: async (job, from, to) => {
      await resolveAccounts(job, external, from, to);
      await createNamedRecords(job, from, to);
      await fillInput(job, from, to);
      await checkPrecision(job);
      await job.run(WRITES.details);
      await job.run(WRITES.tagged);
      const [written] = await job.run<{ n: number }>(WRITES.written);
      return written!.n;
    },
    end: async (job, imported) => {
      // Rules of the family fill in what the rows leave empty (category, merchant, tags).
      await applyRulesToImport(job.run, job.id, job.familyId);
      const accounts = await job.run<{ account_id: string }>(
        'select distinct account_id from entries where import_id = ?::uuid',
        [job.id],
      );
      return { imported, accounts: accounts.map((row) => row.account_id) };
    },
  };
}

/**
 * The import types written range by range: by `import_process` once published, or while they are
 * read when published on create (`import_stage`'s write-as-read).
 */
export const RANGE_WRITERS = {
  TransactionImport: transactionWriter(false),
  ExternalImport: transactionWriter(true),
} satisfies Partial<Record<ImportType, RangeWriter>>;
