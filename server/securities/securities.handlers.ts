import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findSecurity, searchSecurities, securityView } from './security.queries.ts';

export const securitiesHandlers: Handlers<'listSecurities' | 'getSecurity'> = {
  async listSecurities({ em, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchSecurities(em, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(securityView), meta: paginationMeta(page, total) } };
  },
  async getSecurity({ em, principal, params }) {
    return { status: 200, body: { data: securityView(await findSecurity(em, principal.familyId, params.id)) } };
  },
};
