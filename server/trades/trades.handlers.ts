import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { findTrade, searchTrades } from './trade.queries.ts';
import { createTrade, deleteTrade, updateTrade } from './trade.service.ts';
import { tradeView } from './trade.view.ts';

type TradeOperations = 'listTrades' | 'getTrade' | 'createTrade' | 'updateTrade' | 'deleteTrade';

export const tradesHandlers: Handlers<TradeOperations> = {
  async listTrades({ db, principal, query }) {
    const page = pageRequest(query);
    const { rows, total } = await searchTrades(db, principal.familyId, query, page);
    return { status: 200, body: { data: rows.map(tradeView), meta: paginationMeta(page, total) } };
  },
  async getTrade({ db, principal, params }) {
    return { status: 200, body: { data: tradeView(await findTrade(db, principal.familyId, params.id)) } };
  },
  async createTrade({ em, principal, body }) {
    const id = await createTrade(em, principal.familyId, body.trade);
    return { status: 201, body: { data: tradeView(await findTrade(em, principal.familyId, id)) } };
  },
  async updateTrade({ em, principal, params, body }) {
    await updateTrade(em, principal.familyId, params.id, body.trade);
    return { status: 200, body: { data: tradeView(await findTrade(em, principal.familyId, params.id)) } };
  },
  async deleteTrade({ em, principal, params }) {
    await deleteTrade(em, principal.familyId, params.id);
    return { status: 200, body: { data: { id: params.id, deleted: true } } };
  },
};
