import type { Handlers } from '../http/contract.ts';
import { findValuation } from './valuation.queries.ts';
import { createValuation, updateValuation } from './valuation.service.ts';
import { valuationView } from './valuation.view.ts';

type ValuationOperations = 'createValuation' | 'getValuation' | 'updateValuation';

export const valuationsHandlers: Handlers<ValuationOperations> = {
  async createValuation({ em, principal, body }) {
    const { id, created } = await createValuation(em, principal.familyId, body.valuation);
    const data = valuationView(await findValuation(em, principal.familyId, id));
    return created ? { status: 201, body: { data } } : { status: 200, body: { data } };
  },
  async getValuation({ em, principal, params }) {
    return { status: 200, body: { data: valuationView(await findValuation(em, principal.familyId, params.id)) } };
  },
  async updateValuation({ em, principal, params, body }) {
    await updateValuation(em, principal.familyId, params.id, body.valuation);
    return { status: 200, body: { data: valuationView(await findValuation(em, principal.familyId, params.id)) } };
  },
};
