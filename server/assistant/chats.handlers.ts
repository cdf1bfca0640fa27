import type { Handlers } from '../http/contract.ts';
import { pageRequest, paginationMeta } from '../core/pagination.ts';
import { chatView, findChatDetail, MESSAGES_PER_PAGE, searchChats } from './chat.queries.ts';
import { createChat, deleteChat, postMessage, renameChat, retryReply, type ChatSettings } from './chat.service.ts';

type ChatOperations =
  'listChats' | 'createChat' | 'getChat' | 'updateChat' | 'deleteChat' | 'createChatMessage' | 'retryChatMessage';

/** The chat operations; the router has already refused users without AI and servers without a provider. */
export function chatsHandlers(settings: ChatSettings): Handlers<ChatOperations> {
  return {
    async listChats({ db, principal, query }) {
      const page = pageRequest(query);
      const { rows, total } = await searchChats(db, principal.userId, page);
      return { status: 200, body: { data: rows.map(chatView), meta: paginationMeta(page, total) } };
    },
    async createChat({ em, principal, body }) {
      const id = await createChat(em, principal.userId, body, settings);
      return { status: 201, body: await findChatDetail(em, principal.userId, id) };
    },
    async getChat({ db, principal, params, query }) {
      const page = pageRequest(query, MESSAGES_PER_PAGE);
      return { status: 200, body: await findChatDetail(db, principal.userId, params.id, page) };
    },
    async updateChat({ em, principal, params, body }) {
      await renameChat(em, principal.userId, params.id, body.title);
      return { status: 200, body: await findChatDetail(em, principal.userId, params.id) };
    },
    async deleteChat({ em, principal, params }) {
      await deleteChat(em, principal.userId, params.id);
      return { status: 204 };
    },
    async createChatMessage({ em, principal, params, body }) {
      const message = await postMessage(em, principal.userId, params.chat_id, body, settings);
      return { status: 201, body: { data: { ...message, ai_response_status: 'pending' as const } } };
    },
    async retryChatMessage({ em, principal, params }) {
      const messageId = await retryReply(em, principal.userId, params.chat_id, settings);
      return { status: 202, body: { data: { message_id: messageId } } };
    },
  };
}
