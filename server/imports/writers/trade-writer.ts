import { BOUNDS } from '../../core/money/bounds.ts';
import { firstPositionProblem } from '../../trades/position-check.ts';
import { ImportDataError, inChunks, requireRowAccounts, type ImportJob, type WriteOutcome } from './import-writer.ts';

/** The account of a staged row `r`: the import's own (first parameter), else the one the row names. */
const ROW_ACCOUNT = `coalesce(?::uuid, (select a.id from accounts a
  where a.family_id = ?::uuid and lower(a.name) = lower(r."values"->>'account')))`;

/**
 * The security of a staged row `r` (parameter: the family), chosen as the trade service chooses:
 * the ticker (any case) among the securities the family sees, shared ones first; with a MIC, only
 * a security of that exchange. Stable when several fit, so writing and checking agree.
 */
const ROW_SECURITY = `(select s.id from securities s
  where (s.family_id is null or s.family_id = ?::uuid) and upper(s.ticker) = r."values"->>'ticker'
    and (r."values"->>'exchange_operating_mic' is null
      or upper(s.exchange_operating_mic) = r."values"->>'exchange_operating_mic')
  order by s.family_id nulls first, s.exchange_operating_mic nulls first, s.created_at, s.id limit 1)`;

/**
 * The accounts the trades go into, each checked as `createTrade` checks it (it must exist in the
 * family and take trades: investment accounts and crypto exchange accounts), then locked in id
 * order: the account row first, as every entry write takes it, so concurrent imports and API
 * writes into one account run one after the other and the position check sees all of them.
 */
async function tradeAccounts(job: ImportJob): Promise<string[]> {
  if (!job.accountId) await requireRowAccounts(job);
  const accounts = await job.run<{ id: string; name: string; supports: boolean; row_number: number }>(
    `select a.id, a.name, min(u.row_number)::int as row_number,
       (a.account_type = 'investment' or (a.account_type = 'crypto' and a.subtype is not distinct from 'exchange'))
         as supports
     from (select ${ROW_ACCOUNT} as account_id, r.row_number from import_rows r where r.import_id = ?::uuid) u
     join accounts a on a.id = u.account_id
     group by a.id order by min(u.row_number)`,
    [job.accountId, job.familyId, job.id],
  );
  const refused = accounts.find((account) => !account.supports);
  if (refused) {
    throw new ImportDataError(
      `Row ${refused.row_number}: account '${refused.name}' does not support trades (only investment and crypto exchange accounts do)`,
    );
  }
  const ids = accounts.map((account) => account.id).sort();
  await job.run('select id from accounts where id = any(?::uuid[]) order by id for no key update', [ids]);
  return ids;
}

/**
 * The securities the rows name that the family cannot see yet, created for the family (as the
 * trade service creates them). Create-or-reuse: of concurrent first uses of a ticker, one inserts
 * and the others find its row (securities_ticker_key decides). Securities are shared records: a
 * revert leaves them.
 */
async function createSecurities(job: ImportJob): Promise<void> {
  await job.run(
    `insert into securities (id, family_id, ticker, exchange_operating_mic, kind, created_at, updated_at)
     select gen_random_uuid(), ?::uuid, n.ticker, n.mic, 'standard', now(), now()
     from (select distinct r."values"->>'ticker' as ticker, r."values"->>'exchange_operating_mic' as mic
           from import_rows r where r.import_id = ?::uuid) n
     where not exists (
       select 1 from securities s where (s.family_id is null or s.family_id = ?::uuid) and upper(s.ticker) = n.ticker
         and (n.mic is null or upper(s.exchange_operating_mic) = n.mic))
     order by n.ticker, n.mic nulls first
     on conflict do nothing`,
    [job.familyId, job.id, job.familyId],
  );
}

/** A trade total (qty x price) beyond what an amount may be is refused, as the trade service refuses it. */
async function checkTotals(job: ImportJob): Promise<void> {
  const [tooLarge] = await job.run<{ row_number: number }>(
    `select r.row_number from import_rows r
     where r.import_id = ?::uuid
       and abs(round((r."values"->>'qty')::numeric * (r."values"->>'price')::numeric, 4)) > ?::numeric
     order by r.row_number limit 1`,
    [job.id, BOUNDS.amount],
  );
  if (tooLarge) {
    throw new ImportDataError(
      `Row ${tooLarge.row_number}: the trade total (qty x price) must be at most ${BOUNDS.amount}`,
    );
  }
}

/**
 * After the writes, inside the job's transaction and under the account locks: the positions of
 * every security the import traded, on every date (future-dated trades included), computed by the
 * same code the trade service and the account sync use. A sale beyond what the account holds on
 * its date fails the import, naming the import's last row of that account and security dated on
 * or before the first bad position (the sale that made it go below zero).
 */
async function checkPositions(job: ImportJob, accounts: string[]): Promise<void> {
  const traded = await job.run<{ account_id: string; security_id: string }>(
    `select distinct e.account_id, t.security_id from entries e join trades t on t.id = e.entryable_id
     where e.import_id = ?::uuid and e.entryable_type = 'Trade'`,
    [job.id],
  );
  for (const accountId of accounts) {
    const securities = new Set(traded.filter((row) => row.account_id === accountId).map((row) => row.security_id));
    const found = await firstPositionProblem(job.run, accountId, securities);
    if (found) {
      const { position, problem } = found;
      const sales = problem.cause === 'value' ? null : problem.cause === 'sale';
      const [culprit] = await job.run<{ row_number: number; ticker: string; account: string }>(
        `select r.row_number, r."values"->>'ticker' as ticker, (select name from accounts where id = ?::uuid) as account
         from import_rows r
         where r.import_id = ?::uuid and ${ROW_ACCOUNT} = ?::uuid and ${ROW_SECURITY} = ?::uuid
           and (r."values"->>'date')::date <= ?::date
           and (?::boolean is null or ((r."values"->>'qty')::numeric < 0) = ?::boolean)
         order by (r."values"->>'date')::date desc, r.row_number desc limit 1`,
        [
          accountId,
          job.id,
          job.accountId,
          job.familyId,
          accountId,
          job.familyId,
          position.securityId,
          position.date,
          sales,
          sales,
        ],
      );
      const where = culprit ? `${culprit.ticker} in '${culprit.account}' on ${position.date}` : position.date;
      throw new ImportDataError(`Row ${culprit?.row_number ?? 1}: ${problem.message} (${where})`);
    }
  }
}

/**
 * Writes the trades of a TradeImport: set-based statements over the staged rows, 10,000 rows at a
 * time, each row one trade entry. As `createTrade` does it: the quantity is signed (a sale is
 * negative), the entry amount is qty x price rounded half to even to the currency's minor unit (a
 * buy is money out, positive),
 * the currency is the row's else the account's, the name the row's else `Buy 10 shares of VTI`;
 * the activity label is Buy or Sell. The entries carry the import's id so a revert removes them.
 */
export async function writeTrades(job: ImportJob): Promise<WriteOutcome> {
  const accounts = await tradeAccounts(job);
  await checkTotals(job);
  await createSecurities(job);
  const imported = await inChunks(job, async (from, to) => {
    const [written] = await job.run<{ n: number }>(
      `with src as materialized (
         select r."values" as v, gen_random_uuid() as entry_id, gen_random_uuid() as trade_id,
           ${ROW_ACCOUNT} as account_id, ${ROW_SECURITY} as security_id,
           (r."values"->>'qty')::numeric as qty, (r."values"->>'price')::numeric as price
         from import_rows r where r.import_id = ?::uuid and r.row_number between ? and ?
       ), placed as materialized (
         select s.*, coalesce(s.v->>'currency', a.currency) as currency, sec.ticker
         from src s join accounts a on a.id = s.account_id join securities sec on sec.id = s.security_id
       ), details as (
         insert into trades (id, security_id, qty, price, fee, currency, investment_activity_label)
         select t.trade_id, t.security_id, t.qty, t.price, 0, t.currency, case when t.qty < 0 then 'Sell' else 'Buy' end
         from placed t
       ), written as (
         insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name,
           import_id)
         select t.entry_id, ?::uuid, t.account_id, 'Trade', t.trade_id, round_half_even(t.qty * t.price, currency_minor_digits(t.currency)), t.currency,
           (t.v->>'date')::date,
           coalesce(t.v->>'name',
             case when t.qty < 0 then 'Sell ' else 'Buy ' end || trim_scale(abs(t.qty))::text || ' shares of ' || t.ticker),
           ?::uuid
         from placed t
         returning 1
       )
       select count(*)::int as n from written`,
      [job.accountId, job.familyId, job.familyId, job.id, from, to, job.familyId, job.id],
    );
    return written!.n;
  });
  await checkPositions(job, accounts);
  return { imported, accounts };
}
