import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findValuation, searchValuations } from './valuation.queries.ts';
import { createValuation, deleteValuation, updateValuation } from './valuation.service.ts';
import { valuationView } from './valuation.view.ts';

type ValuationOperations =
  'listValuations' | 'createValuation' | 'getValuation' | 'updateValuation' | 'deleteValuation';

export const valuationsHandlers: Handlers<ValuationOperations> = {
  async listValuations({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchValuations(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(valuationView), meta: paginationMeta(page, total) } };
  },
  async createValuation({ em, principal, body }) {
    const { id, created } = await createValuation(em, principal.familyId, body.valuation);
    const data = valuationView(await findValuation(em, principal.familyId, id));
    return created ? { status: 201, body: { data } } : { status: 200, body: { data } };
  },
  async getValuation({ db, principal, params }) {
    return { status: 200, body: { data: valuationView(await findValuation(db, principal.familyId, params.id)) } };
  },
  async updateValuation({ em, principal, params, body }) {
    await updateValuation(em, principal.familyId, params.id, body.valuation);
    return { status: 200, body: { data: valuationView(await findValuation(em, principal.familyId, params.id)) } };
  },
  async deleteValuation({ em, principal, params }) {
    await deleteValuation(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
