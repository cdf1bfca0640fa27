import { Migration } from '@mikro-orm/migrations';

/**
 * The balance bound's queueing locks its accounts as every other write of an account does, `for no
 * key update` (server/accounts/account-lock.ts): writes still queue behind each other and behind a
 * deletion, but a row that only refers to the account (a new import's foreign key, a key-share
 * lock) no longer waits for a write that can hold the account for minutes (an import written as
 * it is read).
 */
export class Migration20261204010000_account_write_lock extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function queue_balance_bound(checked uuid[], moved uuid[]) returns void language plpgsql as $$
      begin
        checked := coalesce(checked, '{}');
        moved := coalesce(moved, '{}');
        if cardinality(checked) + cardinality(moved) = 0 then return; end if;
        perform 1 from accounts where id = any(checked) or id = any(moved) order by id for no key update;
        delete from account_holdings_reach where account_id = any(moved);
        insert into balance_bound_pending (account_id) select distinct id from unnest(checked) as i(id) order by id
        on conflict do nothing;
      end $$`);
  }
}
