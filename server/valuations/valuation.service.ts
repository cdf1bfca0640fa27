import { Entry } from '../entries/entry.entity.ts';
import type { EntityManager } from '../db/orm.ts';
import { flushUnique } from '../core/flush-unique.ts';
import { lockAccount, lockEntryAccount } from '../accounts/account-lock.ts';
import { writeUnit } from '../core/write-unit.ts';
import { ValidationFailed } from '../core/errors.ts';
import { queueAccountSync } from '../accounts/account-sync.ts';
import { minorUnitInput, moneyInput } from '../core/money/decimal-input.ts';
import { toDecimal } from '../core/money/money.ts';
import { Valuation } from './valuation.entity.ts';
import { balanceBoundAt } from '../balances/balance-bound.ts';

export interface NewValuation {
  account_id: string;
  amount: number | string;
  date: string;
  notes?: string;
}

export interface ValuationChange {
  amount?: number | string;
  date?: string;
  notes?: string;
}

/** The entry name of a valuation made through the API. */
const VALUATION_NAME = 'Manual valuation';

/**
 * Sets the balance of an account on a date. One valuation per account and date: a second one for
 * the same date changes the first (`created: false`). The account row is locked first, as by every
 * entry write, so two concurrent requests for one date cannot both create. The account's sync is queued in the same transaction.
 */
export async function createValuation(
  em: EntityManager,
  familyId: string,
  input: NewValuation,
): Promise<{ id: string; created: boolean }> {
  moneyInput(input.amount, '/valuation/amount');
  return writeUnit(em, async (tx) => {
    const account = await lockAccount<{ id: string; currency: string }>(tx, familyId, input.account_id, 'id, currency');
    const amount = toDecimal(minorUnitInput(input.amount, account.currency, '/valuation/amount'));
    const existing = await tx.findOne(Entry, { account: account.id, entryableType: 'Valuation', date: input.date });
    let result: { id: string; created: boolean };
    if (existing) {
      existing.amount = amount;
      if (input.notes !== undefined) existing.notes = input.notes;
      existing.updatedAt = new Date();
      result = { id: existing.id, created: false };
    } else {
      const detail = tx.create(Valuation, {});
      const entry = tx.create(Entry, {
        family: familyId,
        account: account.id,
        entryableType: 'Valuation',
        entryableId: detail.id,
        amount,
        currency: account.currency,
        date: input.date,
        name: VALUATION_NAME,
        notes: input.notes ?? null,
      });
      result = { id: entry.id, created: true };
    }
    await queueAccountSync(tx, account.id);
    return result;
  }).catch(balanceBoundAt({ path: '/valuation/amount' }));
}

/**
 * Changes a valuation: `amount` and `date` only together (a balance belongs to its date), `notes`
 * alone. Moving it onto a date that already has a valuation of the account is refused.
 */
export async function updateValuation(
  em: EntityManager,
  familyId: string,
  id: string,
  change: ValuationChange,
): Promise<void> {
  if (change.amount !== undefined) moneyInput(change.amount, '/valuation/amount');
  await writeUnit(em, async (tx) => {
    const accountId = await lockEntryAccount(tx, familyId, id, 'Valuation');
    const entry = await tx.findOneOrFail(Entry, id);
    if ((change.amount === undefined) !== (change.date === undefined)) {
      const missing = change.amount === undefined ? 'amount' : 'date';
      throw ValidationFailed.at(
        `/valuation/${missing}`,
        'Both amount and date are required when updating reconciliation',
      );
    }
    if (change.date !== undefined) entry.date = change.date;
    if (change.amount !== undefined) {
      entry.amount = toDecimal(minorUnitInput(change.amount, entry.currency, '/valuation/amount'));
    }
    if (change.notes !== undefined) entry.notes = change.notes;
    entry.updatedAt = new Date();
    // The unique index on (account, date) of valuations decides whether the date is free.
    const date = change.date ?? entry.date;
    await flushUnique(tx, '/valuation/date', `The account already has a valuation on ${date}`);
    await queueAccountSync(tx, accountId);
  }).catch(balanceBoundAt({ path: '/valuation/amount' }));
}

/** Deletes a valuation under its account's lock; the sync computes the balances from its date again. */
export async function deleteValuation(em: EntityManager, familyId: string, id: string): Promise<void> {
  await writeUnit(em, async (tx) => {
    const accountId = await lockEntryAccount(tx, familyId, id, 'Valuation');
    const entry = await tx.findOneOrFail(Entry, id);
    await tx.nativeDelete(Entry, { id: entry.id });
    await tx.nativeDelete(Valuation, { id: entry.entryableId });
    await queueAccountSync(tx, accountId);
  });
}
