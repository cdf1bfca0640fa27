import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findTransfer, searchTransfers } from './transfer.queries.ts';
import { confirmTransfer, createTransfer, deleteTransfer, linkTransfer, rejectTransfer } from './transfer.service.ts';
import { transferView } from './transfer.view.ts';

type TransferOperations =
  'listTransfers' | 'getTransfer' | 'createTransfer' | 'deleteTransfer' | 'confirmTransfer' | 'rejectTransfer';

export const transfersHandlers: Handlers<TransferOperations> = {
  async listTransfers({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchTransfers(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(transferView), meta: paginationMeta(page, total) } };
  },
  async getTransfer({ db, principal, params }) {
    return { status: 200, body: { data: transferView(await findTransfer(db, principal.familyId, params.id)) } };
  },
  async createTransfer({ em, principal, body }) {
    const { transfer } = body;
    const id =
      'outflow_transaction_id' in transfer
        ? await linkTransfer(em, principal.familyId, transfer)
        : await createTransfer(em, principal.familyId, transfer);
    return { status: 201, body: { data: transferView(await findTransfer(em, principal.familyId, id)) } };
  },
  async deleteTransfer({ em, principal, params }) {
    await deleteTransfer(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
  async confirmTransfer({ em, principal, params }) {
    await confirmTransfer(em, principal.familyId, params.id);
    return { status: 200, body: { data: transferView(await findTransfer(em, principal.familyId, params.id)) } };
  },
  async rejectTransfer({ em, principal, params }) {
    await rejectTransfer(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
