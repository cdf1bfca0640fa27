import type { ListingQuery, Statement } from '../../core/sql.ts';

/**
 * Income, expense and net per currency over every row of a transactions listing, not only its
 * page: a page of 25 cannot answer "how much in total". Stored amounts are negative for income
 * (money in) and positive for expenses, as the listing's `type` filter reads them; net is from
 * the household's side (income minus expense). Sums stay numeric and are rounded to the stored
 * 4 places, so they travel as exact decimal text.
 */
export function transactionTotals(listing: ListingQuery): Statement {
  return {
    text: `select e.currency, count(*)::int as count,
        round(coalesce(-sum(e.amount) filter (where e.amount < 0), 0), 4)::text as income,
        round(coalesce(sum(e.amount) filter (where e.amount >= 0), 0), 4)::text as expense,
        round(-sum(e.amount), 4)::text as net
      from ${listing.from} group by e.currency order by e.currency`,
    params: listing.params,
  };
}
