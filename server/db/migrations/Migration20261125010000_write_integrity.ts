import { Migration } from '@mikro-orm/migrations';

/**
 * Invariants the database now enforces itself, so concurrent requests cannot break them: one
 * valuation per account and date, no tagging without its transaction, account names unique per
 * family (any case). Rows that already break them are resolved first, deterministically.
 */
export class Migration20261125010000_write_integrity extends Migration {
  override async up(): Promise<void> {
    // Of several valuations of one account and date, the one changed last stays.
    this.addSql(`
      with ranked as (
        select id, entryable_id, row_number() over (
                 partition by account_id, date order by updated_at desc, created_at desc, id desc) as n
          from entries where entryable_type = 'Valuation'
      ), removed as (
        delete from entries e using ranked r where e.id = r.id and r.n > 1 returning r.entryable_id
      )
      delete from valuations v using removed r where v.id = r.entryable_id`);
    this.addSql(`create unique index entries_one_valuation_per_day on entries (account_id, date)
      where entryable_type = 'Valuation'`);

    // Taggings are polymorphic; a generated column gives the transaction ones a real foreign key.
    this.addSql(`delete from taggings g where g.taggable_type = 'Transaction'
      and not exists (select 1 from transactions t where t.id = g.taggable_id)`);
    this.addSql(`alter table taggings add column transaction_id uuid
      generated always as (case when taggable_type = 'Transaction' then taggable_id end) stored
      references transactions (id) on delete cascade`);

    // Later accounts of a clashing name get a number: "Checking (2)".
    this.addSql(`
      update accounts a set name = a.name || ' (' || d.n || ')'
        from (select id, row_number() over (partition by family_id, lower(name) order by created_at, id) as n
                from accounts) d
       where a.id = d.id and d.n > 1`);
    this.addSql(`create unique index accounts_family_name_key on accounts (family_id, lower(name))`);
  }
}
