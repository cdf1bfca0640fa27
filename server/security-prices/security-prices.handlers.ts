import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { priceView, searchPrices } from './security-price.queries.ts';
import { storePrices } from './security-price.service.ts';

export const securityPricesHandlers: Handlers<'listSecurityPrices' | 'createSecurityPrices'> = {
  async listSecurityPrices({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchPrices(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(priceView), meta: paginationMeta(page, total) } };
  },
  async createSecurityPrices({ em, principal, body }) {
    return { status: 200, body: { data: await storePrices(em, principal.familyId, body.security_prices) } };
  },
};
