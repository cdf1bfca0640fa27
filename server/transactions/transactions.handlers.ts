import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { decimalInput, moneyRule } from '../core/money/decimal-input.ts';
import { findTransaction, searchTransactions } from './transaction.queries.ts';
import { createTransaction, deleteTransaction, updateTransaction } from './transaction.service.ts';
import { transactionView } from './transaction.view.ts';

type TransactionOperations =
  'listTransactions' | 'getTransaction' | 'createTransaction' | 'updateTransaction' | 'deleteTransaction';

/** A money filter of the query, read as exactly as a money input and held to the same rules. */
function amountFilter(value: number | string | undefined, name: string): string | undefined {
  return value === undefined
    ? undefined
    : decimalInput(value, { ...moneyRule(`/${name}`, name, 'notNegative'), in: 'query' });
}

export const transactionsHandlers: Handlers<TransactionOperations> = {
  async listTransactions({ db, principal, query }) {
    const page = pageRequest(query);
    const filters = {
      ...query,
      min_amount: amountFilter(query.min_amount, 'min_amount'),
      max_amount: amountFilter(query.max_amount, 'max_amount'),
    };
    const { rows, total, exact } = await searchTransactions(db, principal.familyId, filters, page);
    return { status: 200, body: { data: rows.map(transactionView), meta: paginationMeta(page, total, exact) } };
  },
  async getTransaction({ db, principal, params }) {
    return { status: 200, body: { data: transactionView(await findTransaction(db, principal.familyId, params.id)) } };
  },
  async createTransaction({ db, principal, body }) {
    const { id, created } = await createTransaction(db, principal.familyId, body.transaction);
    const data = transactionView(await findTransaction(db, principal.familyId, id));
    return created ? { status: 201, body: { data } } : { status: 200, body: { data } };
  },
  async updateTransaction({ em, principal, params, body }) {
    await updateTransaction(em, principal.familyId, params.id, body.transaction);
    return { status: 200, body: { data: transactionView(await findTransaction(em, principal.familyId, params.id)) } };
  },
  async deleteTransaction({ em, principal, params }) {
    await deleteTransaction(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
