import { dateRange, type ListingQuery } from '../core/sql.ts';

/** The filters the lists of entries (trades, valuations) take: accounts and a date range. */
export interface EntryFilters {
  account_id?: string;
  account_ids?: string[];
  start_date?: string;
  end_date?: string;
}

/**
 * The listing of entries aliased `e` in `from` that are `visible` (a condition whose one `?` is
 * the family) and match the filters sent, newest date first, as the transaction list orders them.
 */
export function entryListing(
  query: { select: string; from: string; visible: string },
  familyId: string,
  filters: EntryFilters,
): ListingQuery {
  const conditions = [query.visible];
  const params: unknown[] = [familyId];
  if (filters.account_id) {
    conditions.push('e.account_id = ?');
    params.push(filters.account_id);
  }
  if (filters.account_ids?.length) {
    conditions.push('e.account_id = any(?::uuid[])');
    params.push(filters.account_ids);
  }
  for (const condition of dateRange('e.date', filters)) {
    conditions.push(condition.text);
    params.push(...condition.params);
  }
  return {
    select: query.select,
    from: `${query.from} where ${conditions.join(' and ')}`,
    orderBy: 'e.date desc, e.created_at desc, e.id desc',
    params,
  };
}
