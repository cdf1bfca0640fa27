import { flushUniqueName } from '../core/flush-unique.ts';
import { Family } from '../families/family.entity.ts';
import type { Handlers } from '../http/contract.ts';
import { ValidationFailed } from '../core/errors.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { Merchant } from './merchant.entity.ts';
import { findMerchant, merchantView, searchMerchants } from './merchant.queries.ts';
import { deleteMerchant, renameMerchant } from './merchant.service.ts';

export const merchantsHandlers: Handlers<
  'listMerchants' | 'getMerchant' | 'createMerchant' | 'updateMerchant' | 'deleteMerchant'
> = {
  async listMerchants({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchMerchants(db, principal.familyId, page);
    return { status: 200, body: { data: rows.map(merchantView), meta: paginationMeta(page, total) } };
  },
  async getMerchant({ db, principal, params }) {
    return { status: 200, body: { data: merchantView(await findMerchant(db, principal.familyId, params.id)) } };
  },
  async createMerchant({ em, principal, body }) {
    const name = body.merchant.name.trim();
    if (!name) throw ValidationFailed.at('/merchant/name', 'name must not be blank');
    const merchant = em.create(Merchant, { family: em.getReference(Family, principal.familyId), name });
    await flushUniqueName(em, '/merchant/name');
    return { status: 201, body: { data: merchantView(await findMerchant(em, principal.familyId, merchant.id)) } };
  },
  async updateMerchant({ em, principal, params, body }) {
    await renameMerchant(em, principal.familyId, params.id, body.merchant.name);
    return { status: 200, body: { data: merchantView(await findMerchant(em, principal.familyId, params.id)) } };
  },
  async deleteMerchant({ em, principal, params }) {
    await deleteMerchant(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
