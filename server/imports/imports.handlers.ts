import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findImport, importDetailView, importView, searchImportRows, searchImports } from './import.queries.ts';
import { createImport, publishImport, revertImport, updateImport } from './import.service.ts';

export const importsHandlers: Handlers<
  'listImports' | 'createImport' | 'getImport' | 'updateImport' | 'listImportRows' | 'publishImport' | 'revertImport'
> = {
  async listImports({ em, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchImports(em, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(importView), meta: paginationMeta(page, total) } };
  },
  async createImport({ em, principal, body }) {
    const id = await createImport(em, principal.familyId, body);
    return { status: 201, body: { data: importView(await findImport(em, principal.familyId, id)) } };
  },
  async getImport({ em, principal, params }) {
    return { status: 200, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
  },
  async updateImport({ em, principal, params, body }) {
    await updateImport(em, principal.familyId, params.id, body);
    return { status: 200, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
  },
  async listImportRows({ em, principal, params, query }) {
    await findImport(em, principal.familyId, params.id);
    const page = pageRequest(query);
    const { rows, total } = await searchImportRows(em, params.id, query.valid, page);
    return { status: 200, body: { data: rows, meta: paginationMeta(page, total) } };
  },
  async publishImport({ em, principal, params }) {
    await publishImport(em, principal.familyId, params.id);
    return { status: 202, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
  },
  async revertImport({ em, principal, params }) {
    await revertImport(em, principal.familyId, params.id);
    return { status: 202, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
  },
};
