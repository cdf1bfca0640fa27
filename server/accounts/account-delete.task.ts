import { defineTask } from '../core/job-queue.ts';
import { inTransaction } from '../core/sql.ts';
import { retryingConflicts } from '../core/write-unit.ts';
import { deleteAccountStep } from './account-deletion.ts';

/**
 * The `account_delete` task: deletes an account marked `pending_deletion`, a chunk of entries per
 * transaction, then the account. Safe to run twice: each step starts from what is left. An import
 * of the account started meanwhile makes the last step fail (422 in a request); the job is then
 * tried again later.
 */
export const accountDeleteTask = defineTask('account_delete', ['account_id'], async ({ account_id: id }, helpers) => {
  await helpers.withPgClient(async (client) => {
    let gone = false;
    // Each step commits, so the account's lock is free between chunks. A step that a deadlock aborted
    // (a transfer into the account made while it is deleted brings a partner it had not locked) is
    // run again at once rather than the whole job later.
    while (!gone) gone = await retryingConflicts(() => inTransaction(client, () => deleteAccountStep(client, id)));
  });
});
