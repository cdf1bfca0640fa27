import type { ListingQuery, Statement } from '../../core/sql.ts';
import { inFamilyTransfers } from '../../transfers/transfer-membership.ts';

/**
 * Income, expense and net per currency over every row of a transactions listing, not only its
 * page: a page of 25 cannot answer "how much in total". Stored amounts are negative for income
 * (money in) and positive for expenses, as the listing's `type` filter reads them; net is from
 * the household's side (income minus expense). A transaction in a confirmed transfer is counted
 * but is neither income nor expense. Sums stay numeric and are rounded to the stored 4 places, so
 * they travel as exact decimal text.
 */
export function transactionTotals(familyId: string, listing: ListingQuery): Statement {
  return {
    text: `select currency, count(*)::int as count,
        round(coalesce(-sum(amount) filter (where amount < 0 and not transfer), 0), 4)::text as income,
        round(coalesce(sum(amount) filter (where amount >= 0 and not transfer), 0), 4)::text as expense,
        round(coalesce(-sum(amount) filter (where not transfer), 0), 4)::text as net
      from (select e.currency, e.amount, ${inFamilyTransfers('e')} as transfer from ${listing.from}) matched
      group by currency order by currency`,
    params: [familyId, ...listing.params],
  };
}
