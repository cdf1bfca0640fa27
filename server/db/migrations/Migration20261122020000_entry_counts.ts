import { Migration } from '@mikro-orm/migrations';

/**
 * Entry counts per account and kind, kept by statement-level triggers. A list that is filtered
 * only by account (or not at all) reads its total here instead of counting a family's
 * 100,000 entries on every page (bench/README.md: that count was the list's largest cost).
 */
export class Migration20261122020000_entry_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table account_entry_counts (
        account_id uuid not null references accounts (id) on delete cascade,
        entryable_type text not null,
        entries bigint not null default 0,
        primary key (account_id, entryable_type)
      )`);
    this.addSql(`
      create function entry_counts_add() returns trigger language plpgsql as $$
      begin
        insert into account_entry_counts (account_id, entryable_type, entries)
          select account_id, entryable_type, count(*) from added group by account_id, entryable_type
          on conflict (account_id, entryable_type) do update set entries = account_entry_counts.entries + excluded.entries;
        return null;
      end $$`);
    this.addSql(`
      create function entry_counts_remove() returns trigger language plpgsql as $$
      begin
        update account_entry_counts c set entries = c.entries - r.n
          from (select account_id, entryable_type, count(*) as n from removed group by account_id, entryable_type) r
          where c.account_id = r.account_id and c.entryable_type = r.entryable_type;
        return null;
      end $$`);
    this.addSql(`create trigger entries_counted_on_insert after insert on entries
      referencing new table as added for each statement execute function entry_counts_add()`);
    this.addSql(`create trigger entries_counted_on_delete after delete on entries
      referencing old table as removed for each statement execute function entry_counts_remove()`);
    // An update that moves an entry to another account or kind counts as a removal and an addition.
    this.addSql(`create trigger entries_uncounted_on_update after update on entries
      referencing old table as removed for each statement execute function entry_counts_remove()`);
    this.addSql(`create trigger entries_recounted_on_update after update on entries
      referencing new table as added for each statement execute function entry_counts_add()`);
    this.addSql(`
      insert into account_entry_counts (account_id, entryable_type, entries)
        select account_id, entryable_type, count(*) from entries group by account_id, entryable_type`);
  }
}
