import type { Task } from 'graphile-worker';
import { defineTask } from '../core/job-queue.ts';
import type { PoolClient } from 'pg';
import pino from 'pino';
import { createModelClient } from './model-client.ts';
import { WorkerStopping, writePendingReplies } from './reply-writer.ts';
import type { AiProviderConfig } from '../config.ts';
import { runStatement } from '../core/sql.ts';

declare module '../core/job-queue.ts' {
  interface JobPayloads {
    /** Write the pending replies of one chat. */
    assistant_reply: { chat_id: string };
  }
}

const FAILED_INTERNALLY = 'Failed to generate a response. Please try again.';
const STOPPED = 'The server stopped while this reply was being written. Please try again.';

/**
 * The `assistant_reply` task: writes the pending replies of one chat (jobs of a chat share a named
 * queue, so they never run side by side). Without a provider (it was removed after the message
 * was sent) the replies fail with a sentence. A database failure, and a stop of the worker (its
 * runner aborts `helpers.abortSignal`), are retried by graphile-worker; the last attempt fails
 * the replies instead of leaving them pending for ever.
 */
export function assistantReplyTask(provider: AiProviderConfig | undefined, logger = pino({ level: 'silent' })): Task {
  const client = provider ? createModelClient(provider) : undefined;
  return defineTask('assistant_reply', ['chat_id'], async ({ chat_id: chatId }, helpers) => {
    await helpers.withPgClient(async (db) => {
      const failAll = (sentence: string) =>
        runStatement(db as unknown as PoolClient, {
          text: `with failed as (
                   update chat_messages set status = 'failed', updated_at = now()
                   where chat_id = ?::uuid and kind = 'assistant_message' and status = 'pending' returning chat_id
                 )
                 update chats set error = ?, updated_at = now() where id in (select chat_id from failed)`,
          params: [chatId, sentence],
        });
      if (!provider || !client) {
        await failAll('No AI provider is configured on this server. Please contact your administrator.');
        return;
      }
      try {
        const deps = { db: db as unknown as PoolClient, client, provider, log: logger, signal: helpers.abortSignal };
        await writePendingReplies(deps, chatId);
      } catch (error) {
        if (helpers.job.attempts < helpers.job.max_attempts) throw error;
        logger.error({ chatId, err: error }, 'assistant_reply gave up');
        await failAll(error instanceof WorkerStopping ? STOPPED : FAILED_INTERNALLY);
      }
    });
  });
}
