import { accountNameClashes, clashMessage } from '../account-names.ts';
import { ImportDataError, inChunks, type ImportJob, type WriteOutcome } from './import-writer.ts';

/** The entry name of the valuation that anchors an imported opening balance on its date. */
const OPENING_NAME = 'Opening balance';

/** A row naming an account that exists, or repeating an earlier row's name, fails the import. */
async function checkNames(job: ImportJob): Promise<void> {
  const [clash] = await accountNameClashes(job.run, job.id, job.familyId, 1);
  if (clash) throw new ImportDataError(`Row ${clash.row_number}: ${clashMessage(clash)}`);
}

/**
 * Writes the accounts of an AccountImport, one per row, as `createAccount` opens one: the type,
 * the row's currency else the family's, the balance as both today's balance and the opening
 * balance (the anchor the account sync starts from). A row with a date also gets a valuation of
 * that balance on that date (kind `opening_anchor`), so the balance holds from that day on and the
 * sync counts only later flows; without a date there is no valuation, as through the API (not the
 * reference's "two years ago"). Accounts and valuations carry the import's id: a revert removes
 * them (an account only while nothing else was written into it).
 */
export async function writeAccounts(job: ImportJob): Promise<WriteOutcome> {
  await checkNames(job);
  const accounts: string[] = [];
  const imported = await inChunks(job, async (from, to) => {
    const written = await job.run<{ id: string }>(
      `with src as materialized (
         select r."values" as v, gen_random_uuid() as account_id, gen_random_uuid() as entry_id,
           gen_random_uuid() as valuation_id, coalesce(r."values"->>'currency', ?) as currency
         from import_rows r where r.import_id = ?::uuid and r.row_number between ? and ?
       ), opened as (
         insert into accounts (id, family_id, name, account_type, currency, balance, opening_balance, import_id)
         select s.account_id, ?::uuid, s.v->>'name', s.v->>'account_type', s.currency, (s.v->>'balance')::numeric,
           (s.v->>'balance')::numeric, ?::uuid
         from src s
         returning id
       ), anchors as (
         insert into valuations (id, kind) select s.valuation_id, 'opening_anchor' from src s where s.v->>'date' is not null
       ), anchored as (
         insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name,
           import_id)
         select s.entry_id, ?::uuid, s.account_id, 'Valuation', s.valuation_id, (s.v->>'balance')::numeric, s.currency,
           (s.v->>'date')::date, ?, ?::uuid
         from src s where s.v->>'date' is not null
       )
       select id from opened`,
      [job.familyCurrency, job.id, from, to, job.familyId, job.id, job.familyId, OPENING_NAME, job.id],
    );
    accounts.push(...written.map((row) => row.id));
    return written.length;
  });
  return { imported, accounts };
}
