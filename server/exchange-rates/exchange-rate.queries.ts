import type { PageRequest } from '../core/pagination.ts';
import { dateRange, pagedRows, type SqlTarget } from '../core/sql.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { trimDecimal } from '../core/money/money.ts';
import type { RateSource } from './exchange-rate.upsert.ts';

export interface RateFilters {
  from?: string;
  to?: string;
  start_date?: string;
  end_date?: string;
}

interface RateRow {
  id: string;
  from: string;
  to: string;
  date: string;
  rate: string;
  source: RateSource;
  created_at: string;
  updated_at: string;
}

/** The API's exchange rate object: the rate as exact decimal text without trailing zeros. */
export function rateView(row: RateRow) {
  return {
    id: row.id,
    from: row.from,
    to: row.to,
    date: row.date,
    rate: trimDecimal(row.rate),
    source: row.source,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** The family's rates under the list's filters, newest date first, then by pair. */
export function searchRates(db: SqlTarget, familyId: string, filters: RateFilters, page: PageRequest) {
  const conditions = ['family_id = ?'];
  const params: unknown[] = [familyId];
  if (filters.from) {
    conditions.push('from_currency = ?');
    params.push(filters.from);
  }
  if (filters.to) {
    conditions.push('to_currency = ?');
    params.push(filters.to);
  }
  for (const condition of dateRange('date', filters)) {
    conditions.push(condition.text);
    params.push(...condition.params);
  }
  return pagedRows<RateRow>(
    db,
    {
      select: `id, from_currency as "from", to_currency as "to", date, rate::text as rate, source, created_at, updated_at`,
      from: `exchange_rates where ${conditions.join(' and ')}`,
      orderBy: 'date desc, from_currency, to_currency',
      params,
    },
    page,
  );
}
