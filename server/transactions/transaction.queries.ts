import {
  containsPattern,
  dateRange,
  pagedRows,
  sql,
  type ListingQuery,
  type SqlTarget,
  type Statement,
} from '../core/sql.ts';
import { NotFound } from '../core/errors.ts';
import type { PageRequest } from '../core/pagination.ts';
import { confirmedTransferOf, inFamilyTransfers } from '../transfers/transfer-membership.ts';
import type { TransactionRow } from './transaction.view.ts';

/** Every filter of the transactions list (docs/api-decisions.md#transactions); all are combined with AND. */
export interface TransactionFilters {
  account_id?: string;
  account_ids?: string[];
  category_id?: string;
  category_ids?: string[];
  merchant_id?: string;
  merchant_ids?: string[];
  tag_ids?: string[];
  start_date?: string;
  end_date?: string;
  /** Exact decimal text or a number (the assistant's tool). */
  min_amount?: number | string;
  max_amount?: number | string;
  type?: 'income' | 'expense' | 'transfer';
  search?: string;
}

const SELECT = `
  e.id, e.date, e.amount::text as amount, e.currency, e.name, e.notes, e.external_id, e.source, e.created_at,
  e.updated_at, a.id as account_id, a.name as account_name, a.account_type, a.currency::text as account_currency,
  case when e.currency <> a.currency
    then coalesce(e.exchange_rate, exchange_rate_on(e.family_id, e.currency, a.currency, e.date))::text end as exchange_rate,
  c.id as category_id, c.name as category_name, c.color as category_color, c.icon as category_icon,
  m.id as merchant_id, m.name as merchant_name,
  coalesce((
    select json_agg(json_build_object('id', tg.id, 'name', tg.name, 'color', tg.color) order by lower(tg.name))
    from taggings tgg join tags tg on tg.id = tgg.tag_id
    where tgg.taggable_type = 'Transaction' and tgg.taggable_id = t.id
  ), '[]'::json) as tags,
  ${confirmedTransferOf('e', 'a')} as transfer`;

const JOINS = `
  entries e
  join transactions t on t.id = e.entryable_id
  join accounts a on a.id = e.account_id
  left join categories c on c.id = t.category_id
  left join merchants m on m.id = t.merchant_id`;

const ORDER = 'e.date desc, e.created_at desc, e.id desc';

/** Both spellings of a filter (`account_id` and `account_ids`) as one list, or nothing. */
function idsOf(single: string | undefined, many: string[] | undefined): string[][] {
  return [single ? [single] : undefined, many?.length ? many : undefined].filter((ids): ids is string[] => !!ids);
}

/** The WHERE clause for a family's transactions under `filters`, and what else the filters read. */
function whereClause(familyId: string, filters: TransactionFilters) {
  const conditions = [`e.family_id = ?`, `e.entryable_type = 'Transaction'`];
  const params: unknown[] = [familyId];
  const accountLists = idsOf(filters.account_id, filters.account_ids);
  const inList = (column: string, ids: string[]) => {
    conditions.push(`${column} = any(?::uuid[])`);
    params.push(ids);
  };
  for (const ids of accountLists) inList('e.account_id', ids);
  const detailFilters = conditions.length;
  for (const ids of idsOf(filters.category_id, filters.category_ids)) inList('t.category_id', ids);
  for (const ids of idsOf(filters.merchant_id, filters.merchant_ids)) inList('t.merchant_id', ids);
  if (filters.tag_ids?.length) {
    conditions.push(`exists (select 1 from taggings x where x.taggable_type = 'Transaction' and x.taggable_id = t.id
      and x.tag_id = any(?::uuid[]))`);
    params.push(filters.tag_ids);
  }
  // Only these conditions read the transaction details (`t`); the others read the entry alone.
  const needsDetail = conditions.length > detailFilters;
  for (const condition of dateRange('e.date', filters)) {
    conditions.push(condition.text);
    params.push(...condition.params);
  }
  // Amount bounds compare magnitudes: a 50.00 income and a 50.00 expense are both "50".
  if (filters.min_amount !== undefined) {
    conditions.push('abs(e.amount) >= ?');
    params.push(filters.min_amount);
  }
  if (filters.max_amount !== undefined) {
    conditions.push('abs(e.amount) <= ?');
    params.push(filters.max_amount);
  }
  // A transaction in a confirmed transfer is neither income nor expense.
  if (filters.type) {
    const transfer = inFamilyTransfers('e');
    const sign = filters.type === 'income' ? 'e.amount < 0' : 'e.amount >= 0';
    conditions.push(filters.type === 'transfer' ? transfer : `${sign} and not ${transfer}`);
    params.push(familyId);
  }
  if (filters.search) {
    // One trigram-indexed column holds name, notes and merchant name, lower-cased (the migration
    // transaction_search), so the search combines with the other filters in one index plan.
    conditions.push(`e.search_text like lower(?)`);
    params.push(containsPattern(filters.search));
  }
  const accountsOnly = conditions.length === 2 + accountLists.length;
  return { where: conditions.join(' and '), params, accountsOnly, accountLists, needsDetail };
}

/** The total from the maintained per-account counts, for listings filtered by account at most. */
function maintainedCount(familyId: string, accountLists: string[][]): Statement {
  const params: unknown[] = [familyId];
  let text = `select coalesce(sum(c.entries), 0) from account_entry_counts c join accounts a on a.id = c.account_id
    where a.family_id = ? and c.entryable_type = 'Transaction'`;
  for (const ids of accountLists) {
    text += ' and c.account_id = any(?::uuid[])';
    params.push(ids);
  }
  return { text, params };
}

/**
 * The listing of the family's transactions under `filters`, newest first (also run by the
 * benchmark's limit server). Filtered by account at most, the total is exact from maintained
 * counts; any other filter counts its matches only up to a bound (ListingQuery.bounded).
 */
export function transactionListing(familyId: string, filters: TransactionFilters): ListingQuery {
  const { where, params, accountsOnly, accountLists, needsDetail } = whereClause(familyId, filters);
  const listing = { select: SELECT, from: `${JOINS} where ${where}`, orderBy: ORDER, params };
  if (accountsOnly) return { ...listing, count: maintainedCount(familyId, accountLists) };
  const matches = `entries e${needsDetail ? ' join transactions t on t.id = e.entryable_id' : ''} where ${where}`;
  // How many rows a search word matches decides the plan (walk the newest rows, or read the
  // trigram index): a plan kept for one word would be slow for another.
  return { ...listing, bounded: { key: 'e.id', matches, joins: JOINS }, planPerCall: !!filters.search };
}

/** The family's transactions under `filters`. Used by the list endpoint and, later, jobs and the assistant. */
export function searchTransactions(db: SqlTarget, familyId: string, filters: TransactionFilters, page: PageRequest) {
  return pagedRows<TransactionRow>(db, transactionListing(familyId, filters), page);
}

/** The statement that reads one transaction of a family by id. */
export function transactionByIdStatement(familyId: string, id: string): Statement {
  return {
    text: `select ${SELECT} from ${JOINS} where e.id = ? and e.family_id = ? and e.entryable_type = 'Transaction'`,
    params: [id, familyId],
  };
}

/** One transaction of the family, or 404 (also for another family's). */
export async function findTransaction(db: SqlTarget, familyId: string, id: string): Promise<TransactionRow> {
  const statement = transactionByIdStatement(familyId, id);
  const [row] = await sql<TransactionRow>(db, statement.text, statement.params);
  if (!row) throw NotFound.entity('Transaction');
  return row;
}
