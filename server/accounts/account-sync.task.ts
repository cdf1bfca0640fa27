import { defineTask } from '../core/job-queue.ts';
import { BOUNDS } from '../core/money/bounds.ts';
import { inTransaction, sqlOn } from '../core/sql.ts';
import { queueTransferSuggestion } from '../transfers/transfer-suggest.task.ts';
import { syncAccount } from './account-sync.ts';

/** PostgreSQL's SQLSTATE for a value its column cannot hold ("numeric field overflow"). */
const OVERFLOW = '22003';

/**
 * Why a sync failed, in words fit for the account's owner: PostgreSQL's message names the kind of
 * failure (e.g. "numeric field overflow") without the values involved.
 */
function failureReason(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof message === 'string') {
    return `${message} (SQLSTATE ${code})`;
  }
  return 'an internal error';
}

/**
 * The `account_sync` task: one account, in one transaction. A failure is recorded on the account,
 * then retried; an overflow is not: the same entries overflow again (only data written before the
 * balance bound can do it), so the account says so at once and the next write queues the next try.
 */
export const accountSyncTask = defineTask(
  'account_sync',
  ['account_id'],
  async ({ account_id: accountId }, helpers) => {
    await helpers.withPgClient(async (client) => {
      try {
        await inTransaction(client, async () => {
          await syncAccount(client, accountId);
          await queueTransferSuggestion(client, accountId);
        });
      } catch (error) {
        const reason = failureReason(error);
        const overflow = (error as { code?: unknown } | null)?.code === OVERFLOW;
        // Visible, not silent: the account says its balance is stale until a sync succeeds.
        await sqlOn(client)('update accounts set sync_error = ? where id = ?::uuid', [
          overflow
            ? `The balance and holdings could not be updated: they exceed ${BOUNDS.balance}, the most an account can hold. Correct or remove entries to update them.`
            : `The balance and holdings could not be updated: ${reason}. The update is retried automatically.`,
          accountId,
        ]);
        helpers.logger.error(`account_sync failed for account ${accountId}: ${reason}`, { accountId });
        if (!overflow) throw error;
      }
    });
  },
);
