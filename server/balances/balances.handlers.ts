import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findBalance, searchBalances } from './balance.queries.ts';
import { balanceView } from './balance.view.ts';
import { balanceSheet } from './balance-sheet.ts';

/** Read-only: daily balances are written by the account sync job only. */
export const balancesHandlers: Handlers<'listBalances' | 'getBalance' | 'getBalanceSheet'> = {
  async listBalances({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchBalances(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(balanceView), meta: paginationMeta(page, total) } };
  },
  async getBalance({ db, principal, params }) {
    return { status: 200, body: { data: balanceView(await findBalance(db, principal.familyId, params.id)) } };
  },
  async getBalanceSheet({ db, principal, query }) {
    return { status: 200, body: { data: await balanceSheet(db, principal.familyId, query.period ?? '1M') } };
  },
};
