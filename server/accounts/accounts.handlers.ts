import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findAccount, searchAccounts } from './account.queries.ts';
import { writeUnit } from '../core/write-unit.ts';
import { deleteAccount } from './account-deletion.ts';
import { createAccount, updateAccount } from './account.service.ts';
import { accountView } from './account.view.ts';

export const accountsHandlers: Handlers<
  'listAccounts' | 'getAccount' | 'createAccount' | 'updateAccount' | 'deleteAccount'
> = {
  async listAccounts({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchAccounts(db, principal.familyId, page);
    return { status: 200, body: { data: rows.map(accountView), meta: paginationMeta(page, total) } };
  },
  async getAccount({ db, principal, params }) {
    return { status: 200, body: { data: accountView(await findAccount(db, principal.familyId, params.id)) } };
  },
  async createAccount({ em, principal, body }) {
    const id = await createAccount(em, principal.familyId, body.account);
    return { status: 201, body: { data: accountView(await findAccount(em, principal.familyId, id)) } };
  },
  async updateAccount({ em, principal, params, body }) {
    await updateAccount(em, principal.familyId, params.id, body.account);
    return { status: 200, body: { data: accountView(await findAccount(em, principal.familyId, params.id)) } };
  },
  async deleteAccount({ em, principal, params }) {
    const outcome = await writeUnit(em, (tx) => deleteAccount(tx, principal.familyId, params.id));
    if (outcome === 'deleted') return { status: 200, body: { data: { id: params.id, deleted: true } } };
    return { status: 202, body: { data: accountView(await findAccount(em, principal.familyId, params.id)) } };
  },
};
