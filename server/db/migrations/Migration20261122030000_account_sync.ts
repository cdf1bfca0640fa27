import { Migration } from '@mikro-orm/migrations';

/**
 * The account sync job derives `accounts.balance` from valuations and flows; an account without a
 * valuation is anchored at the balance it was opened with, kept here.
 */
export class Migration20261122030000_account_sync extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table accounts add column opening_balance numeric(19,4) not null default 0`);
    this.addSql(`update accounts set opening_balance = balance`);
    // The sync reads an account's valuations by date, then its flows after the latest one.
    this.addSql(`create index entries_account_kind_date_idx on entries (account_id, entryable_type, date)`);
  }
}
