import { dateRange, pagedRows, sql, type ListingQuery, type SqlTarget } from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import type { BalanceRow } from './balance.view.ts';

export interface BalanceFilters {
  account_id?: string;
  start_date?: string;
  end_date?: string;
}

const SELECT = `
  b.id, to_char(b.date, 'YYYY-MM-DD') as date, b.currency::text as currency, b.balance::text as balance,
  b.cash_balance::text as cash_balance, b.holdings_value::text as holdings_value, b.inflows::text as inflows,
  b.outflows::text as outflows, b.income::text as income, b.expenses::text as expenses, b.complete, b.missing_exchange_rates, b.created_at, b.updated_at,
  a.id as account_id, a.name as account_name, a.account_type`;

const FROM = 'balances b join accounts a on a.id = b.account_id';

/** The listing of a family's daily balances under `filters`, newest first. */
export function balanceListing(familyId: string, filters: BalanceFilters): ListingQuery {
  const conditions = ['a.family_id = ?'];
  const params: unknown[] = [familyId];
  if (filters.account_id) {
    conditions.push('b.account_id = ?');
    params.push(filters.account_id);
  }
  for (const condition of dateRange('b.date', filters)) {
    conditions.push(condition.text);
    params.push(...condition.params);
  }
  return {
    select: SELECT,
    from: `${FROM} where ${conditions.join(' and ')}`,
    orderBy: 'b.date desc, a.name, a.id',
    params,
  };
}

export function searchBalances(db: SqlTarget, familyId: string, filters: BalanceFilters, page: PageRequest) {
  return pagedRows<BalanceRow>(db, balanceListing(familyId, filters), page);
}

/** One daily balance of the family, or 404 (also for another family's). */
export async function findBalance(db: SqlTarget, familyId: string, id: string): Promise<BalanceRow> {
  const [row] = await sql<BalanceRow>(db, `select ${SELECT} from ${FROM} where b.id = ? and a.family_id = ?`, [
    id,
    familyId,
  ]);
  if (!row) throw NotFound.entity('Balance');
  return row;
}
