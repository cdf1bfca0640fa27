import type { EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../core/flush-unique.ts';
import { Family } from '../families/family.entity.ts';
import { Unauthorized, ValidationFailed } from '../core/errors.ts';
import { writeUnit } from '../core/write-unit.ts';
import { lockAccount } from './account-lock.ts';
import { isKnownCurrency } from '../core/money/money.ts';
import { minorUnitInput } from '../core/money/decimal-input.ts';
import { queueAccountSync } from './account-sync.ts';
import { Account, type AccountStatus, type AccountType } from './account.entity.ts';

export interface NewAccount {
  name: string;
  account_type: AccountType;
  subtype?: string | null;
  currency?: string;
  balance?: number | string;
}

export interface AccountChanges {
  name?: string;
  subtype?: string | null;
  status?: Exclude<AccountStatus, 'pending_deletion'>;
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationFailed.at('/account/name', 'name must not be blank');
  return trimmed;
}

/** Opens an account; the currency defaults to the family's, the opening balance to 0. */
export async function createAccount(em: EntityManager, familyId: string, input: NewAccount): Promise<string> {
  const name = cleanName(input.name);
  if (input.currency && !isKnownCurrency(input.currency)) {
    throw ValidationFailed.at('/account/currency', `currency "${input.currency}" is not a known ISO 4217 code`);
  }
  const family = await em.findOne(Family, familyId);
  // Deleted with its last member while this request ran: that member's credential is gone too.
  if (!family) throw new Unauthorized();
  const currency = input.currency ?? family.currency;
  const opening = minorUnitInput(input.balance ?? 0, currency, '/account/balance', 'balance');
  const account = em.create(Account, {
    family,
    name,
    accountType: input.account_type,
    subtype: input.subtype ?? null,
    currency,
    balance: opening,
    cashBalance: opening,
    openingBalance: opening,
  });
  await flushUniqueName(em, '/account/name');
  // Its first daily balance: the sync writes the history from the day it was opened.
  await queueAccountSync(em, account.id);
  return account.id;
}

/**
 * Changes an account's name, subtype or status, under its lock (an account being deleted is 404).
 * None of them moves a balance: nothing is marked stale or synced.
 */
export async function updateAccount(
  em: EntityManager,
  familyId: string,
  id: string,
  changes: AccountChanges,
): Promise<void> {
  await writeUnit(em, async (tx) => {
    await lockAccount(tx, familyId, id);
    const account = await tx.findOneOrFail(Account, id);
    if (changes.name !== undefined) account.name = cleanName(changes.name);
    if (changes.subtype !== undefined) account.subtype = changes.subtype;
    if (changes.status !== undefined) account.status = changes.status;
    account.updatedAt = new Date();
    await flushUniqueName(tx, '/account/name');
  });
}
