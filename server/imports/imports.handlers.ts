import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findImport, importDetailView, importView, searchImportRows, searchImports } from './import.queries.ts';
import type { ImportSettings } from '../config.ts';
import { createImport, deleteImport, publishImport, revertImport, updateImport } from './import.service.ts';

type ImportOperations =
  | 'listImports'
  | 'createImport'
  | 'getImport'
  | 'updateImport'
  | 'deleteImport'
  | 'listImportRows'
  | 'publishImport'
  | 'revertImport';

/** The import operations, with the import settings (the lanes their jobs are queued in). */
export function importsHandlers(settings: ImportSettings): Handlers<ImportOperations> {
  return {
    async listImports({ db, principal, query }) {
      const page = pageRequest(query);
      const { rows, total } = await searchImports(db, principal.familyId, query, page);
      return { status: 200, body: { data: rows.map(importView), meta: paginationMeta(page, total) } };
    },
    async createImport({ em, principal, body, text, stored }) {
      // The contract requires raw_file_content: its bytes are here, or stored (app.ts, `offThread`).
      const id = await createImport(em, settings, principal.familyId, body, stored ?? text!);
      return { status: 201, body: { data: importView(await findImport(em, principal.familyId, id)) } };
    },
    async getImport({ db, principal, params }) {
      return { status: 200, body: { data: importDetailView(await findImport(db, principal.familyId, params.id)) } };
    },
    async updateImport({ em, principal, params, body }) {
      await updateImport(em, settings, principal.familyId, params.id, body);
      return { status: 200, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
    },
    async deleteImport({ em, principal, params }) {
      await deleteImport(em, settings, principal.familyId, params.id);
      return { status: 200, body: { data: { id: params.id, deleted: true } } };
    },
    async listImportRows({ db, principal, params, query }) {
      const { status } = await findImport(db, principal.familyId, params.id);
      const page = pageRequest(query);
      // A staging import's rows are those of an earlier reading, about to be replaced: none to show.
      const { rows, total } =
        status === 'staging' ? { rows: [], total: 0 } : await searchImportRows(db, params.id, query.valid, page);
      return { status: 200, body: { data: rows, meta: paginationMeta(page, total) } };
    },
    async publishImport({ em, principal, params }) {
      await publishImport(em, settings, principal.familyId, params.id);
      return { status: 202, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
    },
    async revertImport({ em, principal, params }) {
      await revertImport(em, settings, principal.familyId, params.id);
      return { status: 202, body: { data: importDetailView(await findImport(em, principal.familyId, params.id)) } };
    },
  };
}
