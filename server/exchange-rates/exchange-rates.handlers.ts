import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { rateView, searchRates } from './exchange-rate.queries.ts';
import { storeRates } from './exchange-rate.service.ts';

export const exchangeRatesHandlers: Handlers<'listExchangeRates' | 'createExchangeRates'> = {
  async listExchangeRates({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchRates(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(rateView), meta: paginationMeta(page, total) } };
  },
  async createExchangeRates({ em, principal, body }) {
    return { status: 200, body: { data: await storeRates(em, principal.familyId, body.exchange_rates) } };
  },
};
