import { ACCOUNT_TYPES, type AccountStatus } from '../../accounts/account.entity.ts';
import { accountListing } from '../../accounts/account.queries.ts';
import { accountClassification, type AccountRow } from '../../accounts/account.view.ts';
import { readListing, runStatement, type ListingQuery, type Statement } from '../../core/sql.ts';
import type { AssistantTool } from './assistant-tool.ts';

/** Accounts in use count, as for holdings: disabled accounts and those being deleted do not. */
const COUNTED_STATUSES: readonly AccountStatus[] = ['active', 'draft'];

const LIABILITY_TYPES = ACCOUNT_TYPES.filter((type) => accountClassification(type) === 'liability');

/** Accounts listed at most in the groups; the totals always cover every account. */
const ACCOUNT_LIMIT = 500;

/**
 * Assets, liabilities and net worth per currency, summed in SQL so they stay exact. A liability's
 * balance is what is owed (positive), so it is subtracted from the net worth.
 */
function totalsStatement(listing: ListingQuery): Statement {
  return {
    text: `select currency,
        round(coalesce(sum(balance) filter (where account_type <> all(?::text[])), 0), 4)::text as assets,
        round(coalesce(sum(balance) filter (where account_type = any(?::text[])), 0), 4)::text as liabilities,
        round(coalesce(sum(case when account_type = any(?::text[]) then -balance else balance end), 0), 4)::text
          as net_worth
      from ${listing.from} group by currency order by currency`,
    params: [LIABILITY_TYPES, LIABILITY_TYPES, LIABILITY_TYPES, ...listing.params],
  };
}

interface CurrencyTotals {
  currency: string;
  assets: string;
  liabilities: string;
  net_worth: string;
}

export const balanceSheetTool: AssistantTool = {
  name: 'get_balance_sheet',
  description:
    "The household's balance sheet today, per currency (no exchange rates are applied): total assets, " +
    'total liabilities (amounts owed) and net worth, with the accounts of each group, as exact decimal ' +
    'strings. Disabled accounts are left out.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async run(context) {
    const listing = accountListing(context.familyId, { statuses: COUNTED_STATUSES });
    const totals = await runStatement<CurrencyTotals>(context.db, totalsStatement(listing));
    const { rows, total } = await readListing<AccountRow>(context.db, listing, { page: 1, perPage: ACCOUNT_LIMIT });
    const group = (currency: string, classification: 'asset' | 'liability') =>
      rows
        .filter((row) => row.currency === currency && accountClassification(row.account_type) === classification)
        .map((row) => ({ id: row.id, name: row.name, type: row.account_type, balance: row.balance }));
    return {
      family_currency: context.currency,
      currencies: totals.map((sums) => ({
        currency: sums.currency,
        assets: { total: sums.assets, accounts: group(sums.currency, 'asset') },
        liabilities: { total: sums.liabilities, accounts: group(sums.currency, 'liability') },
        net_worth: sums.net_worth,
      })),
      ...(total > rows.length ? { truncated: `the groups list only the first ${rows.length} accounts by name` } : {}),
    };
  },
};
