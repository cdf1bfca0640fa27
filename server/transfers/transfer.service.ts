import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { queueAccountSync } from '../accounts/account-sync.ts';
import type { AccountType } from '../accounts/account.entity.ts';
import { NotFound, ValidationFailed, type ErrorDetail } from '../core/errors.ts';
import { minorUnitInput } from '../core/money/decimal-input.ts';
import { negate, toDecimal } from '../core/money/money.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { insertTransactions } from '../transactions/transaction.bulk-insert.ts';
import { uniqueViolation } from '../core/flush-unique.ts';
import { balanceBoundAt } from '../balances/balance-bound.ts';
import {
  LINK_CHECKS,
  linkChecks,
  rateSql,
  transferNames,
  type LinkCheck,
  type TransferStatus,
} from './transfer-rule.ts';

/** Money moved between two accounts of the family (`createTransfer`, first shape). */
export interface NewTransferInput {
  from_account_id: string;
  to_account_id: string;
  amount: number | string;
  to_amount?: number | string;
  date: string;
  notes?: string;
}

/** Two existing transactions to link (`createTransfer`, second shape). */
export interface TransferLinkInput {
  outflow_transaction_id: string;
  inflow_transaction_id: string;
}

const BODY = '/transfer';

/** The message of a transaction that already is in a confirmed transfer. */
const TAKEN = 'The transaction is already in a transfer';

interface LockedAccount {
  id: string;
  name: string;
  account_type: AccountType;
  currency: string;
}

/**
 * Locks the family's accounts `ids` in one fixed order (by id): the lock order of every write of
 * entries (accounts/account-lock.ts), for a write on two accounts at once, so that two transfers
 * between the same accounts in opposite directions queue instead of deadlocking.
 */
async function lockAccounts(tx: EntityManager, familyId: string, ids: string[]): Promise<Map<string, LockedAccount>> {
  const rows = await sql<LockedAccount>(
    tx,
    `select id, name, account_type, currency from accounts where id = any(?::uuid[]) and family_id = ?
     order by id for no key update`,
    [ids, familyId],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The message for a conversion no stored rate allows. */
function missingRate(from: string, to: string, date: string): string {
  return `no exchange rate from ${from} to ${to} on ${date}`;
}

/**
 * `amount` in `from` converted into `to` at the family's rate of `date`, rounded half to even to
 * `to`'s minor unit (as every converted amount is); null when no rate is known.
 */
async function converted(tx: EntityManager, familyId: string, amount: string, from: string, to: string, date: string) {
  const rate = rateSql('v.family_id', 'v.from_currency', 'v.to_currency', 'v.on_date');
  const [row] = await sql<{ amount: string | null }>(
    tx,
    `select round_half_even(v.amount * ${rate}, currency_minor_digits(v.to_currency))::text as amount
     from (values (?::uuid, ?::numeric, ?::text, ?::text, ?::date)) v(family_id, amount, from_currency, to_currency, on_date)`,
    [familyId, amount, from, to, date],
  );
  return row?.amount ?? null;
}

/**
 * Runs `write`; a transaction that meanwhile joined a confirmed transfer (the unique indexes on
 * each side decide, so of concurrent requests exactly one wins) becomes a 422 at the place `at`
 * gives for the side it is on.
 */
async function unlessTaken<T>(write: () => Promise<T>, at: (side: 'outflow' | 'inflow') => ErrorDetail): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const clash = uniqueViolation(error);
    if (!clash) throw error;
    throw new ValidationFailed([at(clash.constraint === 'transfers_inflow_status_idx' ? 'inflow' : 'outflow')]);
  }
}

/** Records a confirmed transfer of two entries; returns its id. */
async function insertConfirmed(tx: EntityManager, familyId: string, outflowId: string, inflowId: string) {
  const id = randomUUID();
  await sql(
    tx,
    `insert into transfers (id, family_id, outflow_entry_id, inflow_entry_id, status) values (?, ?, ?, ?, 'confirmed')`,
    [id, familyId, outflowId, inflowId],
  );
  return id;
}

/**
 * Queues the syncs of a transfer's accounts, in the caller's transaction: a confirmed transfer
 * appearing or going changes what their daily balances count as income and expense (the transfers
 * trigger marks them stale from its date; the sync recomputes them).
 */
async function queueSyncs(tx: EntityManager, accountIds: Iterable<string>): Promise<void> {
  for (const accountId of [...new Set(accountIds)].sort()) await queueAccountSync(tx, accountId);
}

/**
 * A transfer of the family with its accounts locked first (the lock order; the transfers trigger
 * locks them too), then its status read again under those locks; 404 when there is none.
 */
async function lockTransfer(tx: EntityManager, familyId: string, id: string) {
  const [sides] = await sql<{ outflow_account: string; inflow_account: string }>(
    tx,
    `select o.account_id as outflow_account, i.account_id as inflow_account from transfers x
       join entries o on o.id = x.outflow_entry_id join entries i on i.id = x.inflow_entry_id
     where x.id = ? and x.family_id = ?`,
    [id, familyId],
  );
  if (!sides) throw NotFound.entity('Transfer');
  const accountIds = [sides.outflow_account, sides.inflow_account];
  await lockAccounts(tx, familyId, accountIds);
  const [current] = await sql<{ status: TransferStatus }>(tx, 'select status from transfers where id = ?', [id]);
  if (!current) throw NotFound.entity('Transfer');
  return { status: current.status, accountIds };
}

/**
 * Writes the outflow on the from account, the inflow on the to account and the confirmed transfer,
 * in one database transaction after locking both accounts; queues both accounts' syncs in it.
 * Returns the transfer's id.
 */
export async function createTransfer(em: EntityManager, familyId: string, input: NewTransferInput): Promise<string> {
  if (input.from_account_id === input.to_account_id) {
    throw ValidationFailed.at(`${BODY}/to_account_id`, 'to_account_id must differ from from_account_id');
  }
  return writeUnit(em, async (tx) => {
    const accounts = await lockAccounts(tx, familyId, [input.from_account_id, input.to_account_id]);
    const from = accounts.get(input.from_account_id);
    const to = accounts.get(input.to_account_id);
    if (!from || !to) throw NotFound.entity('Account');
    const amount = toDecimal(minorUnitInput(input.amount, from.currency, `${BODY}/amount`, 'amount', 'positive'));
    let toAmount: string | null;
    if (input.to_amount !== undefined) {
      toAmount = toDecimal(minorUnitInput(input.to_amount, to.currency, `${BODY}/to_amount`, 'to_amount', 'positive'));
      if (from.currency === to.currency && toAmount !== amount) {
        throw ValidationFailed.at(
          `${BODY}/to_amount`,
          `to_amount must equal amount: both accounts are in ${to.currency}`,
        );
      }
    } else {
      toAmount = await converted(tx, familyId, amount, from.currency, to.currency, input.date);
      if (toAmount === null) {
        throw ValidationFailed.at(`${BODY}/to_amount`, missingRate(from.currency, to.currency, input.date));
      }
    }
    const names = transferNames(from, to);
    const common = { familyId, date: input.date, notes: input.notes ?? null };
    const [outflowId, inflowId] = await insertTransactions(tx, [
      { ...common, accountId: from.id, amount, currency: from.currency, name: names.outflow },
      { ...common, accountId: to.id, amount: negate(toAmount), currency: to.currency, name: names.inflow },
    ]);
    const id = await insertConfirmed(tx, familyId, outflowId!, inflowId!);
    await queueSyncs(tx, accounts.keys());
    return id;
  }).catch(balanceBoundAt({ path: `${BODY}/amount` }));
}

/**
 * Links two transactions of the family as a confirmed transfer when they pass LINK_CHECKS. A
 * suggestion involving either stays until the suggestion job prunes it (confirming it is a 422).
 * Returns the transfer's id.
 */
export async function linkTransfer(em: EntityManager, familyId: string, input: TransferLinkInput): Promise<string> {
  const paths = { outflow: `${BODY}/outflow_transaction_id`, inflow: `${BODY}/inflow_transaction_id` };
  const ids = [input.outflow_transaction_id, input.inflow_transaction_id];
  return unlessTaken(
    () =>
      writeUnit(em, async (tx) => {
        const owners = await sql<{ account_id: string }>(
          tx,
          `select account_id from entries where id = any(?::uuid[]) and family_id = ? and entryable_type = 'Transaction'`,
          [ids, familyId],
        );
        if (owners.length < new Set(ids).size) throw NotFound.entity('Transaction');
        const accountIds = owners.map((owner) => owner.account_id);
        await lockAccounts(tx, familyId, [...new Set(accountIds)]);
        // Read again under the locks: what a concurrent write committed meanwhile counts.
        const checks = linkChecks('o', 'i');
        const [pair] = await sql<Record<LinkCheck, boolean | null> & { from: string; to: string; date: string }>(
          tx,
          `select ${Object.entries(checks)
            .map(([name, check]) => `${check} as ${name}`)
            .join(', ')},
             o.currency as from, i.currency as to, o.date
           from entries o, entries i where o.id = ? and i.id = ? and o.family_id = ? and i.family_id = ?`,
          [...ids, familyId, familyId],
        );
        if (!pair) throw NotFound.entity('Transaction');
        const problems: ErrorDetail[] = [];
        for (const name of Object.keys(LINK_CHECKS) as LinkCheck[]) {
          if (pair[name] === true) continue;
          const message =
            pair[name] === null && name === 'amounts_agree'
              ? missingRate(pair.from, pair.to, pair.date)
              : LINK_CHECKS[name];
          problems.push({ path: name === 'is_outflow' ? paths.outflow : paths.inflow, message });
        }
        if (problems.length) throw new ValidationFailed(problems);
        const id = await insertConfirmed(tx, familyId, input.outflow_transaction_id, input.inflow_transaction_id);
        await queueSyncs(tx, accountIds);
        return id;
      }),
    (side) => ({ path: paths[side], message: TAKEN }),
  );
}

/**
 * Confirms a suggestion (a confirmed transfer stays as it is). When either transaction has meanwhile
 * joined another confirmed transfer, the unique index refuses it: 422.
 */
export async function confirmTransfer(em: EntityManager, familyId: string, id: string): Promise<void> {
  await unlessTaken(
    () =>
      writeUnit(em, async (tx) => {
        const transfer = await lockTransfer(tx, familyId, id);
        if (transfer.status === 'confirmed') return;
        await sql(tx, `update transfers set status = 'confirmed', updated_at = now() where id = ?`, [id]);
        await queueSyncs(tx, transfer.accountIds);
      }),
    () => ({ path: '/id', in: 'path', message: TAKEN }),
  );
}

/** Deletes a suggestion and remembers its pair, which is never suggested again. */
export async function rejectTransfer(em: EntityManager, familyId: string, id: string): Promise<void> {
  const [row] = await sql<{ status: TransferStatus }>(
    em,
    `with found as (
       select id, status from transfers where id = ? and family_id = ?
     ), gone as (
       delete from transfers x using found f where x.id = f.id and f.status = 'suggested'
       returning x.family_id, x.outflow_entry_id, x.inflow_entry_id
     ), remembered as (
       insert into transfer_rejections (family_id, outflow_entry_id, inflow_entry_id)
       select family_id, outflow_entry_id, inflow_entry_id from gone on conflict do nothing
     )
     select status from found`,
    [id, familyId],
  );
  if (!row) throw NotFound.entity('Transfer');
  if (row.status !== 'suggested') {
    throw new ValidationFailed([
      {
        message: 'Only a suggested transfer can be rejected; unlink a confirmed one with DELETE',
        path: '/id',
        in: 'path',
      },
    ]);
  }
}

/**
 * Unlinks a transfer: both transactions stay, as ordinary ones. The pair is remembered like a
 * rejected one, so the suggestion job does not offer again what the household just undid.
 */
export async function deleteTransfer(em: EntityManager, familyId: string, id: string): Promise<void> {
  await writeUnit(em, async (tx) => {
    const transfer = await lockTransfer(tx, familyId, id);
    await sql(
      tx,
      `with gone as (
         delete from transfers where id = ? returning family_id, outflow_entry_id, inflow_entry_id
       )
       insert into transfer_rejections (family_id, outflow_entry_id, inflow_entry_id)
       select family_id, outflow_entry_id, inflow_entry_id from gone on conflict do nothing`,
      [id],
    );
    if (transfer.status === 'confirmed') await queueSyncs(tx, transfer.accountIds);
  });
}
