import { runStatement, type Statement } from '../../core/sql.ts';
import { transactionListing } from '../../transactions/transaction.queries.ts';
import { inFamilyTransfers } from '../../transfers/transfer-membership.ts';
import type { AssistantTool } from './assistant-tool.ts';
import { checkDateOrder } from './invalid-arguments.ts';
import { dateParameter } from './tool-parameters.ts';

interface SpendingArguments {
  start_date: string;
  end_date: string;
}

const UNCATEGORIZED = 'Uncategorized';

/**
 * Per currency, the expenses of each category and (in the currency's own row) the expense and
 * income totals, over the period's transactions that count: not excluded, not in a confirmed transfer (money moved between the household's own accounts is
 * neither spending nor income). The
 * family and date conditions are the transactions listing's; its WHERE is a conjunction, so more
 * conditions are appended. Stored amounts are positive for expenses and negative for income.
 */
function spendingStatement(familyId: string, period: SpendingArguments): Statement {
  const listing = transactionListing(familyId, period);
  return {
    text: `select e.currency, grouping(c.id) = 1 as currency_total, c.id as category_id,
        coalesce(c.name, ?) as category, count(*) filter (where e.amount > 0)::int as transactions,
        round(coalesce(sum(e.amount) filter (where e.amount > 0), 0), 4)::text as expense,
        round(coalesce(-sum(e.amount) filter (where e.amount < 0), 0), 4)::text as income
      from ${listing.from} and not e.excluded and not ${inFamilyTransfers('e')}
      group by grouping sets ((e.currency), (e.currency, c.id, c.name))
      having grouping(c.id) = 1 or count(*) filter (where e.amount > 0) > 0
      order by e.currency, grouping(c.id) desc, sum(e.amount) filter (where e.amount > 0) desc, category`,
    params: [UNCATEGORIZED, ...listing.params, familyId],
  };
}

interface SpendingRow {
  currency: string;
  currency_total: boolean;
  category_id: string | null;
  category: string;
  transactions: number;
  expense: string;
  income: string;
}

export const spendingTool: AssistantTool = {
  name: 'get_spending_by_category',
  description:
    'Expenses per category between two dates (both included), per currency, largest first, with the ' +
    'expense and income totals of the period, as exact decimal strings. Uncategorized expenses are ' +
    'grouped as "Uncategorized" (category_id null). Entries excluded from budgets and transfers between ' +
    "the household's own accounts are left out.",
  parameters: {
    type: 'object',
    properties: {
      start_date: dateParameter('First date included, YYYY-MM-DD.'),
      end_date: dateParameter('Last date included, YYYY-MM-DD; not before start_date.'),
    },
    required: ['start_date', 'end_date'],
    additionalProperties: false,
  },
  async run(context, args) {
    const period = args as unknown as SpendingArguments;
    checkDateOrder(period);
    const rows = await runStatement<SpendingRow>(context.db, spendingStatement(context.familyId, period));
    // Rows come per currency: its total first, then its categories.
    const currencies = rows
      .filter((row) => row.currency_total)
      .map((total) => ({
        currency: total.currency,
        expense: total.expense,
        income: total.income,
        categories: rows
          .filter((row) => !row.currency_total && row.currency === total.currency)
          .map((row) => ({
            category: row.category,
            category_id: row.category_id,
            amount: row.expense,
            transactions: row.transactions,
          })),
      }));
    return { start_date: period.start_date, end_date: period.end_date, currencies };
  },
};
