import type { EntityManager } from '@mikro-orm/postgresql';
import { Category } from '../categories/category.entity.ts';
import { Entry } from '../entries/entry.entity.ts';
import { NotFound, ValidationFailed, type ErrorDetail } from '../core/errors.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { currencyProblem } from '../core/money/currency-check.ts';
import { moneyInput, precisionMessage, rateInput } from '../core/money/decimal-input.ts';
import { exactDecimal } from '../core/money/exact-decimal.ts';
import { minorDigits } from '../core/money/minor-units.ts';
import { signedAmount, type Nature } from '../core/money/signed-amount.ts';
import { Tag } from '../tags/tag.entity.ts';
import { Tagging } from '../tags/tagging.entity.ts';
import { queueAccountSync } from '../accounts/account-sync.ts';
import { lockEntryAccount } from '../accounts/account-lock.ts';
import { retryingConflicts, writeUnit } from '../core/write-unit.ts';
import { sql, type SqlTarget } from '../core/sql.ts';
import { uniqueViolation } from '../core/flush-unique.ts';
import type { TransactionRecord } from './transaction.bulk-insert.ts';
import { transactionCreateStatement } from './transaction.create-statement.ts';
import { transferPartnerAccounts } from '../transfers/transfer-membership.ts';
import { balanceBoundAt } from '../balances/balance-bound.ts';
import { Transaction } from './transaction.entity.ts';

/** Fields a client may set on a transaction (create needs account_id, date, amount and a name). */
export interface TransactionInput {
  account_id?: string;
  date?: string;
  amount?: number | string;
  name?: string;
  description?: string;
  notes?: string | null;
  currency?: string;
  exchange_rate?: number | string;
  category_id?: string | null;
  merchant_id?: string | null;
  nature?: Nature;
  tag_ids?: string[];
  external_id?: string;
  source?: string;
}

const BODY = '/transaction';

/** `name`, else `description` (the seed accepts either), trimmed; undefined when neither is given. */
function nameOf(input: TransactionInput): string | undefined {
  const name = input.name ?? input.description;
  return name === undefined ? undefined : name.trim();
}

/** Checks of the body beyond the contract (which has already required the fields and bounded the amount). */
function checkInput(input: TransactionInput): void {
  const problems: ErrorDetail[] = [];
  if (nameOf(input) === '') problems.push({ path: `${BODY}/name`, message: 'name must not be blank' });
  const currency = currencyProblem(input.currency, `${BODY}/currency`);
  if (currency) problems.push(currency);
  if (problems.length) throw new ValidationFailed(problems);
  // Exactly what was sent, or a 422: never rounded to the column's 4 places.
  if (input.amount !== undefined) moneyInput(input.amount, `${BODY}/amount`);
  if (input.exchange_rate !== undefined) rateInput(input.exchange_rate, `${BODY}/exchange_rate`);
}

/**
 * The one rule of a transaction's currency against its account's: the amount no finer than the
 * currency's minor unit, and an own rate only for a currency other than the account's.
 */
function currencyRules(amount: string, currency: string, rate: unknown, accountCurrency: string): void {
  if (exactDecimal(amount)!.fraction.length > minorDigits(currency)) {
    throw ValidationFailed.at(`${BODY}/amount`, precisionMessage('amount', currency));
  }
  if (rate !== undefined && rate !== null && currency === accountCurrency) {
    throw ValidationFailed.at(
      `${BODY}/exchange_rate`,
      `exchange_rate applies only to a transaction in another currency than its account's (${accountCurrency})`,
    );
  }
}

/** Reads the referenced category, merchant and tags, refusing any that is not the family's. */
async function references(db: SqlTarget, familyId: string, input: TransactionInput) {
  const problems: ErrorDetail[] = [];
  const owned = async (table: 'categories' | 'merchants' | 'tags', ids: string[]) => {
    const rows = await sql<{ id: string }>(db, `select id from ${table} where id = any(?::uuid[]) and family_id = ?`, [
      ids,
      familyId,
    ]);
    return new Set(rows.map((row) => row.id));
  };
  let categoryId: string | null = null;
  if (input.category_id) {
    if ((await owned('categories', [input.category_id])).size) categoryId = input.category_id;
    else
      problems.push({ path: `${BODY}/category_id`, message: 'category_id does not match a category of this family' });
  }
  let merchantId: string | null = null;
  if (input.merchant_id) {
    if ((await owned('merchants', [input.merchant_id])).size) merchantId = input.merchant_id;
    else
      problems.push({ path: `${BODY}/merchant_id`, message: 'merchant_id does not match a merchant of this family' });
  }
  let tagIds: string[] | undefined;
  if (input.tag_ids !== undefined) {
    const wanted = [...new Set(input.tag_ids)];
    const found = wanted.length ? await owned('tags', wanted) : new Set<string>();
    tagIds = wanted.filter((id) => found.has(id));
    const reported = new Set<string>();
    input.tag_ids.forEach((id, index) => {
      // Pointers name the position in the request; a repeated unknown id is reported once.
      if (!found.has(id) && !reported.has(id)) {
        reported.add(id);
        problems.push({ path: `${BODY}/tag_ids/${index}`, message: `tag ${id} does not match a tag of this family` });
      }
    });
  }
  if (problems.length) throw new ValidationFailed(problems);
  return {
    categoryId,
    merchantId,
    tagIds,
    categoryGiven: input.category_id !== undefined,
    merchantGiven: input.merchant_id !== undefined,
  };
}

/**
 * The references of a new transaction; an unknown account is a 404 before any 422 of them, as a
 * client fixes the account first.
 */
async function referencesOfNew(db: SqlTarget, familyId: string, input: TransactionInput) {
  try {
    return await references(db, familyId, input);
  } catch (error) {
    if (error instanceof ValidationFailed) {
      const [account] = await sql(db, 'select 1 from accounts where id = ? and family_id = ?', [
        input.account_id,
        familyId,
      ]);
      if (!account) throw NotFound.entity('Account');
    }
    throw error;
  }
}

/** Where an `external_id` comes from when the client names nothing else (as the reference does). */
const DEFAULT_SOURCE = 'api';
/** The unique index of migration 20261201010000: one transaction per account, source and external id. */
const EXTERNAL_ID_INDEX = 'entries_account_source_external_id_unique';

/** The family's transaction on the account that carries this source and external id, if any. */
async function transactionWithExternalId(
  db: SqlTarget,
  familyId: string,
  accountId: string,
  key: { externalId: string; source: string },
): Promise<string | undefined> {
  const [row] = await sql<{ id: string }>(
    db,
    `select e.id from entries e join accounts a on a.id = e.account_id
     where e.account_id = ? and a.family_id = ? and e.source = ? and e.external_id = ?`,
    [accountId, familyId, key.source, key.externalId],
  );
  return row?.id;
}

/**
 * Records a transaction; returns its id (the entry's) and whether it was created. A create
 * repeating an account's `source` and `external_id` writes nothing and returns the transaction
 * already there, whatever else it says (an offline queue sending again); the unique index decides
 * between concurrent ones, and the losers read the winner's.
 */
export async function createTransaction(
  db: SqlTarget,
  familyId: string,
  input: TransactionInput,
): Promise<{ id: string; created: boolean }> {
  checkInput(input);
  const key =
    input.external_id === undefined ? null : { externalId: input.external_id, source: input.source ?? DEFAULT_SOURCE };
  const stored = key && (await transactionWithExternalId(db, familyId, input.account_id!, key));
  if (stored) return { id: stored, created: false };
  const refs = await referencesOfNew(db, familyId, input);
  const record: TransactionRecord = {
    familyId,
    accountId: input.account_id!,
    date: input.date!,
    amount: signedAmount(input.amount!, input.nature),
    currency: input.currency ?? null,
    exchangeRate: input.exchange_rate === undefined ? null : rateInput(input.exchange_rate, `${BODY}/exchange_rate`),
    name: nameOf(input)!,
    notes: input.notes ?? null,
    categoryId: refs.categoryId,
    merchantId: refs.merchantId,
    tagIds: refs.tagIds ?? [],
    externalId: key?.externalId ?? null,
    source: key?.source ?? null,
  };
  // Create is a hot path (bench/README.md): lock, apply rules, write and queue the sync in one
  // statement. Rules fill in only what the request left out.
  const fill = { category: !refs.categoryGiven, merchant: !refs.merchantGiven, tags: refs.tagIds === undefined };
  const { statement, id } = transactionCreateStatement(record, fill);
  let outcome: { account_currency: string; queued: number } | undefined;
  try {
    [outcome] = await retryingConflicts(() =>
      sql<{ account_currency: string; queued: number }>(db, statement.text, statement.params),
    ).catch(balanceBoundAt({ path: `${BODY}/amount` }));
  } catch (error) {
    const winner =
      key && uniqueViolation(error)?.constraint === EXTERNAL_ID_INDEX
        ? await transactionWithExternalId(db, familyId, record.accountId, key)
        : undefined;
    if (winner) return { id: winner, created: false };
    throw error;
  }
  if (!outcome) throw NotFound.entity('Account');
  if (!outcome.queued) {
    // Nothing was written: say which currency rule the statement found broken.
    currencyRules(
      record.amount,
      record.currency ?? outcome.account_currency,
      record.exchangeRate,
      outcome.account_currency,
    );
  }
  return { id, created: true };
}

/** Changes what the client sent; omitted fields (and omitted `tag_ids`) stay as they are, `tag_ids: []` clears tags. */
export async function updateTransaction(
  em: EntityManager,
  familyId: string,
  id: string,
  input: Omit<TransactionInput, 'account_id'>,
): Promise<void> {
  checkInput(input);
  const refs = await references(em, familyId, input);
  await writeUnit(em, async (tx) => {
    const accountId = await lockEntryAccount(tx, familyId, id, 'Transaction');
    const entry = await tx.findOneOrFail(Entry, id);
    const detail = await tx.findOneOrFail(Transaction, entry.entryableId);
    const [{ currency: accountCurrency }] = (await sql<{ currency: string }>(
      tx,
      'select currency::text as currency from accounts where id = ?',
      [accountId],
    )) as [{ currency: string }];
    const name = nameOf(input);
    if (name !== undefined) entry.name = name;
    if (input.date !== undefined) entry.date = input.date;
    if (input.notes !== undefined) entry.notes = input.notes;
    // A rate belongs to the currency it converts: a new currency without a new rate drops the old one.
    if (input.currency !== undefined && input.currency !== entry.currency) entry.exchangeRate = null;
    if (input.currency !== undefined) entry.currency = input.currency;
    if (input.exchange_rate !== undefined) entry.exchangeRate = rateInput(input.exchange_rate, `${BODY}/exchange_rate`);
    // A nature alone re-signs the stored amount; an amount alone is stored as sent.
    if (input.amount !== undefined || input.nature !== undefined) {
      entry.amount = signedAmount(input.amount ?? entry.amount, input.nature);
    }
    currencyRules(entry.amount, entry.currency, entry.exchangeRate, accountCurrency);
    if (refs.categoryGiven) detail.category = refs.categoryId ? tx.getReference(Category, refs.categoryId) : null;
    if (refs.merchantGiven) detail.merchant = refs.merchantId ? tx.getReference(Merchant, refs.merchantId) : null;
    if (refs.tagIds !== undefined) {
      await tx.nativeDelete(Tagging, { taggableType: 'Transaction', taggableId: detail.id });
      for (const tagId of refs.tagIds) {
        tx.create(Tagging, { tag: tx.getReference(Tag, tagId), taggableType: 'Transaction', taggableId: detail.id });
      }
    }
    detail.updatedAt = entry.updatedAt = new Date();
    await queueAccountSync(tx, accountId);
  }).catch(balanceBoundAt({ path: `${BODY}/amount` }));
}

/** Deletes a transaction with its details and tags. */
export async function deleteTransaction(em: EntityManager, familyId: string, id: string): Promise<void> {
  await writeUnit(em, async (tx) => {
    const accountId = await lockEntryAccount(tx, familyId, id, 'Transaction');
    const entry = await tx.findOneOrFail(Entry, id);
    const partners = await transferPartnerAccounts(tx, id);
    // Its taggings go with the transaction row, its transfer with the entry (foreign keys, on delete cascade).
    await tx.nativeDelete(Entry, { id: entry.id });
    await tx.nativeDelete(Transaction, { id: entry.entryableId });
    for (const account of [accountId, ...partners]) await queueAccountSync(tx, account);
  });
}
