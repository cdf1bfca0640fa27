import { Migration } from '@mikro-orm/migrations';

/**
 * The mark of the first date whose balance changed (every insert, update and delete of entries
 * calls it through a statement trigger) locks its accounts as every other write of an account does,
 * `for no key update` (server/accounts/account-lock.ts). It took `for update`, so an import written
 * as it is read held its account that way from its first range to its commit, and every new import
 * of the account (its foreign key and the request's own check, key-share locks) waited for the
 * whole running import: up to 20 s per POST in bench:import-flood, minutes for a large file.
 */
export class Migration20261205000000_stale_mark_lock extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function mark_balances_stale(marks jsonb) returns void language plpgsql as $$
      begin
        perform 1 from accounts a
          where a.id in (select (m->>'account_id')::uuid from jsonb_array_elements(marks) m)
          order by a.id for no key update;
        update accounts a set balances_stale_from = least(coalesce(a.balances_stale_from, m.first_date), m.first_date)
          from (select (m->>'account_id')::uuid as account_id, min((m->>'date')::date) as first_date
                  from jsonb_array_elements(marks) m group by 1) m
         where a.id = m.account_id
           and a.balances_stale_from is distinct from least(coalesce(a.balances_stale_from, m.first_date), m.first_date);
      end $$`);
  }
}
