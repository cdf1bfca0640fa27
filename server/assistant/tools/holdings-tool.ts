import { readListing, runStatement, type ListingQuery, type Statement } from '../../core/sql.ts';
import { holdingListing } from '../../holdings/holding.queries.ts';
import type { HoldingRow } from '../../holdings/holding.view.ts';
import { trimDecimal } from '../../core/money/money.ts';
import type { AssistantTool } from './assistant-tool.ts';
import { matchesNothing, resolveNames, unmatchedReport } from './family-names.ts';
import { pageOf, pageSummary } from './tool-paging.ts';
import { dateParameter, nameListParameter, PAGE_PARAMETERS } from './tool-parameters.ts';

interface HoldingsArguments {
  accounts?: string[];
  date?: string;
  page?: number;
  page_size?: number;
}

/** The market value of every listed position per currency (not only the page's), exact. */
function valueTotals(listing: ListingQuery): Statement {
  return {
    text: `select h.currency, round(sum(h.amount), 4)::text as amount
      from ${listing.from} group by h.currency order by h.currency`,
    params: listing.params,
  };
}

export const holdingsTool: AssistantTool = {
  name: 'get_holdings',
  description:
    "Lists the household's investment positions on a date (default today), largest value first: per " +
    'account and security the ticker, name, quantity held, price, market value and average cost, as ' +
    'exact decimal strings in the position currency, valued on `valued_on` (its latest valuation up to the date). ' +
    '`totals` is the value of all positions per currency.',
  parameters: {
    type: 'object',
    properties: {
      accounts: nameListParameter('Only positions in these accounts (names from get_accounts).'),
      date: dateParameter('The date of the positions, YYYY-MM-DD (default today).'),
      ...PAGE_PARAMETERS,
    },
    additionalProperties: false,
  },
  async run(context, args) {
    const input = args as HoldingsArguments;
    const page = pageOf(input);
    const asOf = input.date ?? context.today;
    const resolved = await resolveNames(context.db, context.familyId, { accounts: input.accounts });
    if (matchesNothing({ accounts: input.accounts }, resolved)) {
      return { as_of: asOf, holdings: [], ...pageSummary(page, 0), totals: [], ...unmatchedReport(resolved) };
    }
    const listing = holdingListing(context.familyId, { account_ids: resolved.ids.accounts }, { positionsOn: asOf });
    const { rows, total } = await readListing<HoldingRow>(context.db, listing, page);
    const totals = total ? await runStatement(context.db, valueTotals(listing)) : [];
    return {
      as_of: asOf,
      holdings: rows.map((row) => ({
        ticker: row.security_ticker,
        name: row.security_name,
        qty: trimDecimal(row.qty),
        price: row.price,
        amount: row.amount,
        avg_cost: row.avg_cost,
        currency: row.currency,
        account: row.account_name,
        valued_on: row.date,
      })),
      ...pageSummary(page, total),
      totals,
      ...unmatchedReport(resolved),
    };
  },
};
