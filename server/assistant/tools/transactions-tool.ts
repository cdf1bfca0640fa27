import { readListing, runStatement } from '../../core/sql.ts';
import { BOUNDS } from '../../core/money/bounds.ts';
import { absolute } from '../../core/money/money.ts';
import { classify } from '../../core/money/signed-amount.ts';
import { transactionListing } from '../../transactions/transaction.queries.ts';
import type { TransactionRow } from '../../transactions/transaction.view.ts';
import type { AssistantTool } from './assistant-tool.ts';
import { matchesNothing, resolveNames, unmatchedReport, type NamesByKind } from './family-names.ts';
import { checkBoundsOrder, checkDateOrder } from './invalid-arguments.ts';
import { transactionTotals } from './transaction-totals.ts';
import { pageOf, pageSummary } from './tool-paging.ts';
import { dateParameter, nameListParameter, PAGE_PARAMETERS } from './tool-parameters.ts';

interface TransactionsArguments {
  start_date?: string;
  end_date?: string;
  accounts?: string[];
  categories?: string[];
  merchants?: string[];
  tags?: string[];
  search?: string;
  min_amount?: number;
  max_amount?: number;
  type?: 'income' | 'expense' | 'transfer';
  page?: number;
  page_size?: number;
}

/** Notes are free text up to 10,000 characters; the model gets their start. */
const NOTES_LIMIT = 500;

/** A transaction as the model reads it: names rather than ids, the amount as a magnitude and its direction. */
function transactionSummary(row: TransactionRow) {
  return {
    id: row.id,
    date: row.date,
    name: row.name,
    amount: absolute(row.amount),
    type: row.transfer ? 'transfer' : classify(row.amount),
    currency: row.currency,
    account: row.account_name,
    category: row.category_name,
    merchant: row.merchant_name,
    tags: row.tags.map((tag) => tag.name),
    notes: row.notes === null ? null : row.notes.slice(0, NOTES_LIMIT),
  };
}

export const transactionsTool: AssistantTool = {
  name: 'get_transactions',
  description:
    "Searches the household's transactions, newest first, with the filters of the transactions list. " +
    'Accounts, categories, merchants and tags are given by name (case-insensitive); names that match ' +
    'nothing are reported back. Amounts are exact decimal strings: a positive magnitude with type ' +
    "income, expense or transfer (money moved between the household's own accounts: neither income nor " +
    'expense). `totals` gives income, expense and net per currency over ALL matches, not only this page ' +
    '(transfers left out; entries excluded from budgets included, get_spending_by_category leaves them out).',
  parameters: {
    type: 'object',
    properties: {
      start_date: dateParameter('First date included, YYYY-MM-DD.'),
      end_date: dateParameter('Last date included, YYYY-MM-DD.'),
      accounts: nameListParameter('Only transactions of these accounts (names from get_accounts).'),
      categories: nameListParameter('Only transactions in these categories.'),
      merchants: nameListParameter('Only transactions with these merchants.'),
      tags: nameListParameter('Only transactions with at least one of these tags.'),
      search: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'Text found in the name, the notes or the merchant name.',
      },
      min_amount: {
        type: 'number',
        minimum: 0,
        maximum: Number(BOUNDS.amount),
        description: 'Smallest amount (magnitude, either direction).',
      },
      max_amount: {
        type: 'number',
        minimum: 0,
        maximum: Number(BOUNDS.amount),
        description: 'Largest amount (magnitude, either direction).',
      },
      type: {
        type: 'string',
        enum: ['income', 'expense', 'transfer'],
        description: "Only money in, only money out, or only transfers between the household's own accounts.",
      },
      ...PAGE_PARAMETERS,
    },
    additionalProperties: false,
  },
  async run(context, args) {
    const input = args as TransactionsArguments;
    checkDateOrder(input);
    checkBoundsOrder('min_amount', input.min_amount, 'max_amount', input.max_amount);
    const page = pageOf(input);
    const names: NamesByKind = {
      accounts: input.accounts,
      categories: input.categories,
      merchants: input.merchants,
      tags: input.tags,
    };
    const resolved = await resolveNames(context.db, context.familyId, names);
    // An id filter left empty would be dropped by the listing and match everything instead.
    if (matchesNothing(names, resolved)) {
      return { transactions: [], ...pageSummary(page, 0), totals: [], ...unmatchedReport(resolved) };
    }
    const listing = transactionListing(context.familyId, {
      account_ids: resolved.ids.accounts,
      category_ids: resolved.ids.categories,
      merchant_ids: resolved.ids.merchants,
      tag_ids: resolved.ids.tags,
      start_date: input.start_date,
      end_date: input.end_date,
      search: input.search,
      min_amount: input.min_amount,
      max_amount: input.max_amount,
      type: input.type,
    });
    const { rows, total, exact } = await readListing<TransactionRow>(context.db, listing, page);
    const totals = total
      ? await runStatement<{ count: number }>(context.db, transactionTotals(context.familyId, listing))
      : [];
    return {
      transactions: rows.map(transactionSummary),
      // The totals read every match anyway, so the model always gets the exact count.
      ...pageSummary(page, exact ? total : totals.reduce((sum, currency) => sum + currency.count, 0)),
      totals,
      ...unmatchedReport(resolved),
    };
  },
};
