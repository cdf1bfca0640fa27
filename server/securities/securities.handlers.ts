import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findSecurity, searchSecurities, securityView } from './security.queries.ts';

export const securitiesHandlers: Handlers<'listSecurities' | 'getSecurity'> = {
  async listSecurities({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchSecurities(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(securityView), meta: paginationMeta(page, total) } };
  },
  async getSecurity({ db, principal, params }) {
    return { status: 200, body: { data: securityView(await findSecurity(db, principal.familyId, params.id)) } };
  },
};
