import { containsPattern, type ListingQuery } from '../server/core/sql.ts';
import { transactionListing, type TransactionFilters } from '../server/transactions/transaction.queries.ts';

/**
 * The transaction search as it ran before issue 14, for the benchmark's second figure only: `ilike`
 * over the name, the notes and the family's merchant names (an `or` no index serves), and an exact
 * count of every match. The other filters are today's. Its plan never used the trigram indexes
 * on name and notes that the change dropped (bench/README.md), so the comparison is fair.
 */
export function oldSearchListing(familyId: string, filters: TransactionFilters): ListingQuery {
  const base = transactionListing(familyId, { ...filters, search: undefined });
  if (!base.bounded || !filters.search) throw new Error('the old search needs a search and another filter');
  const pattern = containsPattern(filters.search);
  const condition = ` and (e.name ilike ? or e.notes ilike ? or e.entryable_id in (
    select mt.id from transactions mt join merchants mm on mm.id = mt.merchant_id where mm.family_id = ? and mm.name ilike ?))`;
  const params = [...base.params, pattern, pattern, familyId, pattern];
  return {
    select: base.select,
    from: base.from + condition,
    orderBy: base.orderBy,
    params,
    count: { text: `select count(*) from ${base.bounded.matches}${condition}`, params },
  };
}
