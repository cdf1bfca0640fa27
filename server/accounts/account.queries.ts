import type { EntityManager } from '@mikro-orm/postgresql';
import { pagedRows, sql, type Statement } from '../db/sql.ts';
import { NotFound } from '../http/errors.ts';
import type { PageRequest } from '../http/pagination.ts';
import type { AccountRow } from './account.view.ts';

const COLUMNS =
  'id, name, balance::text as balance, currency, account_type, subtype, status, sync_error, created_at, updated_at';

/** The family's accounts, by name. */
export function searchAccounts(em: EntityManager, familyId: string, page: PageRequest) {
  return pagedRows<AccountRow>(
    em,
    { select: COLUMNS, from: 'accounts where family_id = ?', orderBy: 'name, id', params: [familyId] },
    page,
  );
}

/** One account of the family, or 404 (also for another family's account). */
export async function findAccount(em: EntityManager, familyId: string, id: string): Promise<AccountRow> {
  const [row] = await sql<AccountRow>(em, `select ${COLUMNS} from accounts where id = ? and family_id = ?`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Account');
  return row;
}

/** The statement that reads an account of the family with the family's currency (the default for new entries). */
export function accountForEntryStatement(familyId: string, id: string): Statement {
  return {
    text: 'select a.id, f.currency as family_currency from accounts a join families f on f.id = a.family_id where a.id = ? and a.family_id = ?',
    params: [id, familyId],
  };
}

/** An account new entries can be written to, or 404 (also for another family's account). */
export async function findAccountForEntry(em: EntityManager, familyId: string, id: string) {
  const statement = accountForEntryStatement(familyId, id);
  const [row] = await sql<{ id: string; family_currency: string }>(em, statement.text, statement.params);
  if (!row) throw NotFound.entity('Account');
  return row;
}
