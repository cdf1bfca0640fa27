import type { PageRequest } from '../core/pagination.ts';
import { dateRange, pagedRows, type SqlTarget } from '../core/sql.ts';
import { isoTimestamp } from '../db/timestamp.ts';
import { formatMoney, toMinorUnits } from '../core/money/money.ts';

export interface PriceFilters {
  security_id?: string;
  start_date?: string;
  end_date?: string;
}

interface PriceRow {
  id: string;
  date: string;
  price: string;
  currency: string;
  shared: boolean;
  created_at: string;
  updated_at: string;
  security_id: string;
  security_ticker: string;
  security_name: string | null;
}

/** The API's security price object. */
export function priceView(row: PriceRow) {
  return {
    id: row.id,
    security: { id: row.security_id, ticker: row.security_ticker, name: row.security_name },
    date: row.date,
    price: formatMoney(row.price, row.currency),
    price_cents: toMinorUnits(row.price, row.currency),
    currency: row.currency,
    shared: row.shared,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/**
 * The prices a family sees: its own, and shared market data of the securities it sees. Newest
 * date first, then by ticker, a shared price before the family's own of the same day.
 */
export function searchPrices(db: SqlTarget, familyId: string, filters: PriceFilters, page: PageRequest) {
  const conditions = ['(p.family_id = ? or (p.family_id is null and (s.family_id is null or s.family_id = ?)))'];
  const params: unknown[] = [familyId, familyId];
  if (filters.security_id) {
    conditions.push('p.security_id = ?');
    params.push(filters.security_id);
  }
  for (const condition of dateRange('p.date', filters)) {
    conditions.push(condition.text);
    params.push(...condition.params);
  }
  return pagedRows<PriceRow>(
    db,
    {
      select: `p.id, p.date, p.price::text as price, p.currency, p.family_id is null as shared,
               p.created_at, p.updated_at, s.id as security_id, s.ticker as security_ticker, s.name as security_name`,
      from: `security_prices p join securities s on s.id = p.security_id where ${conditions.join(' and ')}`,
      orderBy: 'p.date desc, upper(s.ticker), s.id, p.family_id nulls first',
      params,
    },
    page,
  );
}
