import { Migration } from '@mikro-orm/migrations';

/**
 * Every process that keeps looked-up credentials (http/credential-cache.ts) listens on
 * `credential_changed`: a change to an API key or access token (revoked, expired, scope, deleted)
 * or to its user (deactivated, family, assistant access, deleted) notifies the user's id when it
 * commits, and each process forgets that user's credentials. Transition tables allow one event
 * per trigger, hence an update and a delete trigger per table.
 */
export class Migration20261128010000_credential_notifications extends Migration {
  override async up(): Promise<void> {
    for (const [fn, column] of [
      ['notify_credential_owner', 'user_id'],
      ['notify_credential_user', 'id'],
    ]) {
      this.addSql(`
        create function ${fn}() returns trigger language plpgsql as $$
        begin
          perform pg_notify('credential_changed', owner::text) from (select distinct ${column} as owner from previous) o;
          return null;
        end $$`);
    }
    for (const [table, fn] of [
      ['api_keys', 'notify_credential_owner'],
      ['oauth_tokens', 'notify_credential_owner'],
      ['users', 'notify_credential_user'],
    ]) {
      for (const event of ['update', 'delete']) {
        this.addSql(`create trigger ${table}_credential_${event} after ${event} on ${table}
          referencing old table as previous for each statement execute function ${fn}()`);
      }
    }
  }
}
