import { ACCOUNT_TYPES, type AccountType } from '../../accounts/account.entity.ts';
import { accountListing } from '../../accounts/account.queries.ts';
import { accountClassification, type AccountRow } from '../../accounts/account.view.ts';
import type { AssistantTool } from './assistant-tool.ts';
import { readListing } from '../../core/sql.ts';

interface AccountsArguments {
  classification?: 'asset' | 'liability';
  account_type?: AccountType;
}

/** Accounts returned at most; households have a few dozen, the cap only bounds the answer. */
const ACCOUNT_LIMIT = 500;

export const accountsTool: AssistantTool = {
  name: 'get_accounts',
  description:
    "Lists the household's accounts: id, name, type, whether it is an asset or a liability, today's " +
    'balance (exact decimal string in the account currency; a liability balance is the amount owed) and ' +
    'status. Use the names with the other tools.',
  parameters: {
    type: 'object',
    properties: {
      classification: {
        type: 'string',
        enum: ['asset', 'liability'],
        description: 'Only assets (what is owned) or only liabilities (what is owed).',
      },
      account_type: { type: 'string', enum: [...ACCOUNT_TYPES], description: 'Only accounts of this type.' },
    },
    additionalProperties: false,
  },
  async run(context, args) {
    const input = args as AccountsArguments;
    const types = ACCOUNT_TYPES.filter(
      (type) =>
        (!input.classification || accountClassification(type) === input.classification) &&
        (!input.account_type || type === input.account_type),
    );
    const listing = accountListing(context.familyId, { account_types: types });
    const { rows, total } = await readListing<AccountRow>(context.db, listing, { page: 1, perPage: ACCOUNT_LIMIT });
    return {
      accounts: rows.map((row) => ({
        id: row.id,
        name: row.name,
        type: row.account_type,
        classification: accountClassification(row.account_type),
        balance: row.balance,
        currency: row.currency,
        status: row.status,
      })),
      total_count: total,
      ...(total > rows.length ? { truncated: `only the first ${rows.length} accounts by name are listed` } : {}),
      family_currency: context.currency,
    };
  },
};
