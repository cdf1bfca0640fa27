import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findHolding, searchHoldings } from './holding.queries.ts';
import { holdingView } from './holding.view.ts';

/** Read-only: holdings are written by the account sync job only. */
export const holdingsHandlers: Handlers<'listHoldings' | 'getHolding'> = {
  async listHoldings({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchHoldings(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(holdingView), meta: paginationMeta(page, total) } };
  },
  async getHolding({ db, principal, params }) {
    return { status: 200, body: { data: holdingView(await findHolding(db, principal.familyId, params.id)) } };
  },
};
