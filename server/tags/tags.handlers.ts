import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findTag, searchTags, tagView } from './tag.queries.ts';
import { createTag, deleteTag, updateTag } from './tag.service.ts';

export const tagsHandlers: Handlers<'listTags' | 'getTag' | 'createTag' | 'updateTag' | 'deleteTag'> = {
  async listTags({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchTags(db, principal.familyId, page);
    return { status: 200, body: { data: rows.map(tagView), meta: paginationMeta(page, total) } };
  },
  async getTag({ db, principal, params }) {
    return { status: 200, body: { data: tagView(await findTag(db, principal.familyId, params.id)) } };
  },
  async createTag({ em, principal, body }) {
    const id = await createTag(em, principal.familyId, body.tag);
    return { status: 201, body: { data: tagView(await findTag(em, principal.familyId, id)) } };
  },
  async updateTag({ em, principal, params, body }) {
    await updateTag(em, principal.familyId, params.id, body.tag);
    return { status: 200, body: { data: tagView(await findTag(em, principal.familyId, params.id)) } };
  },
  async deleteTag({ em, principal, params }) {
    await deleteTag(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
