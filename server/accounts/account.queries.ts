import { pagedRows, sql, type ListingQuery, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import type { AccountStatus, AccountType } from './account.entity.ts';
import type { AccountRow } from './account.view.ts';

const COLUMNS = `id, name, balance::text as balance, cash_balance::text as cash_balance,
  holdings_value::text as holdings_value, balance_complete, missing_exchange_rates, currency, account_type, subtype,
  status, sync_error, created_at, updated_at`;

/** Filters of an accounts listing; both are combined with AND. */
export interface AccountFilters {
  /** Only accounts of these types. */
  account_types?: readonly AccountType[];
  /** Only accounts in these states. */
  statuses?: readonly AccountStatus[];
}

/** The listing of the family's accounts, by name (the list endpoint reads it unfiltered). */
export function accountListing(familyId: string, filters: AccountFilters = {}): ListingQuery {
  const conditions = ['family_id = ?'];
  const params: unknown[] = [familyId];
  if (filters.account_types) {
    conditions.push('account_type = any(?::text[])');
    params.push(filters.account_types);
  }
  if (filters.statuses) {
    conditions.push('status = any(?::text[])');
    params.push(filters.statuses);
  }
  return { select: COLUMNS, from: `accounts where ${conditions.join(' and ')}`, orderBy: 'name, id', params };
}

/** The family's accounts, by name. */
export function searchAccounts(db: SqlTarget, familyId: string, page: PageRequest) {
  return pagedRows<AccountRow>(db, accountListing(familyId), page);
}

/** One account of the family, or 404 (also for another family's account). */
export async function findAccount(db: SqlTarget, familyId: string, id: string): Promise<AccountRow> {
  const [row] = await sql<AccountRow>(db, `select ${COLUMNS} from accounts where id = ? and family_id = ?`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Account');
  return row;
}
