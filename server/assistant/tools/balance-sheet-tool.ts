import { balanceSheet } from '../../balances/balance-sheet.ts';
import type { AssistantTool } from './assistant-tool.ts';

/** Accounts listed at most in the groups; the totals always cover every account. */
const ACCOUNT_LIMIT = 500;

/**
 * The household's balance sheet today, as the API's `GET /balance_sheet` computes it: in the
 * family's currency, each account converted at today's rate, missing rates named.
 */
export const balanceSheetTool: AssistantTool = {
  name: 'get_balance_sheet',
  description:
    "The household's balance sheet today in the family's currency: net worth, total assets, total " +
    'liabilities (amounts owed), each account type with its accounts (own currency and converted), and ' +
    'the exchange rates that are missing (amounts without a rate are left out, never guessed). Amounts are ' +
    'formatted strings with their minor units. Disabled accounts are left out.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async run(context) {
    const sheet = await balanceSheet(context.db, context.familyId, '1M');
    let listed = 0;
    const groups = sheet.groups.map(({ accounts, ...group }) => {
      const shown = accounts.slice(0, Math.max(0, ACCOUNT_LIMIT - listed));
      listed += shown.length;
      return { ...group, accounts: shown };
    });
    const total = sheet.groups.reduce((sum, group) => sum + group.accounts.length, 0);
    return {
      currency: sheet.currency,
      net_worth: sheet.net_worth,
      net_worth_cents: sheet.net_worth_cents,
      assets: sheet.assets,
      assets_cents: sheet.assets_cents,
      liabilities: sheet.liabilities,
      liabilities_cents: sheet.liabilities_cents,
      complete: sheet.complete,
      missing_exchange_rates: sheet.missing_exchange_rates,
      groups,
      ...(total > listed ? { truncated: `the groups list only the first ${listed} accounts` } : {}),
    };
  },
};
