import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { categoryView, findCategory, searchCategories } from './category.queries.ts';
import { createCategory, deleteCategory, updateCategory } from './category.service.ts';

export const categoriesHandlers: Handlers<
  'listCategories' | 'getCategory' | 'createCategory' | 'updateCategory' | 'deleteCategory'
> = {
  async listCategories({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchCategories(db, principal.familyId, page);
    return { status: 200, body: { data: rows.map(categoryView), meta: paginationMeta(page, total) } };
  },
  async getCategory({ db, principal, params }) {
    return { status: 200, body: { data: categoryView(await findCategory(db, principal.familyId, params.id)) } };
  },
  async createCategory({ em, principal, body }) {
    const id = await createCategory(em, principal.familyId, body.category);
    return { status: 201, body: { data: categoryView(await findCategory(em, principal.familyId, id)) } };
  },
  async updateCategory({ em, principal, params, body }) {
    await updateCategory(em, principal.familyId, params.id, body.category);
    return { status: 200, body: { data: categoryView(await findCategory(em, principal.familyId, params.id)) } };
  },
  async deleteCategory({ em, principal, params, query }) {
    await deleteCategory(em, principal.familyId, params.id, query.replacement_id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
