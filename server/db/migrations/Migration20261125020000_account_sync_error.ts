import { Migration } from '@mikro-orm/migrations';

/** Why the last account sync failed (null once one succeeds), so a stale balance is never silent. */
export class Migration20261125020000_account_sync_error extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table accounts add column sync_error text`);
  }
}
