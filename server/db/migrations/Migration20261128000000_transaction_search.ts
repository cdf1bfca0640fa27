import { Migration } from '@mikro-orm/migrations';

/**
 * The transaction search reads one column: an entry's name, notes and (for a transaction) its
 * merchant's name, lower-cased and joined by a separator no search can contain (the contract
 * refuses control characters in `search`). One trigram index over it, scoped by family, replaces
 * the two on name and notes and the per-search scan of merchant names, so the planner can combine
 * the search with the other filters (bench/README.md: the `or` over three sources defeated every
 * index, ~40 ms of PostgreSQL per search). Triggers keep the column right whoever writes:
 * - an entry's own insert or rename computes it (reading the merchant when its transaction exists);
 * - a transaction written with or moved to another merchant refreshes its entry (this also covers
 *   the one-statement insert, whose entry cannot see the transaction row of the same statement);
 * - a renamed merchant refreshes the entries of its transactions (a deleted one sets
 *   `merchant_id` to null, which is an update of the transaction).
 */
export class Migration20261128000000_transaction_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists btree_gin`);
    this.addSql(`
      create function entry_search_text(name text, notes text, merchant text) returns text
        language sql immutable parallel safe
        as $$ select lower(name || chr(31) || coalesce(notes, '') || chr(31) || coalesce(merchant, '')) $$`);
    this.addSql(`alter table entries add column search_text text`);
    this.addSql(`
      create function entries_search_text_set() returns trigger language plpgsql as $$
      begin
        new.search_text := entry_search_text(new.name, new.notes, case when new.entryable_type = 'Transaction' then
          (select m.name from transactions t join merchants m on m.id = t.merchant_id where t.id = new.entryable_id) end);
        return new;
      end $$`);
    this.addSql(`create trigger entries_search_text before insert or update of name, notes on entries
      for each row execute function entries_search_text_set()`);
    // Transition tables rule out `update of <column>` triggers, so an update compares the merchant
    // itself; `previous` exists for updates only, hence the two statements.
    this.addSql(`
      create function transactions_search_text_refresh() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          update entries e set search_text = entry_search_text(e.name, e.notes, m.name)
            from changed c join merchants m on m.id = c.merchant_id
            where e.entryable_id = c.id and e.entryable_type = 'Transaction'
              and e.search_text is distinct from entry_search_text(e.name, e.notes, m.name);
        else
          update entries e set search_text = entry_search_text(e.name, e.notes, m.name)
            from changed c join previous p on p.id = c.id and p.merchant_id is distinct from c.merchant_id
              left join merchants m on m.id = c.merchant_id
            where e.entryable_id = c.id and e.entryable_type = 'Transaction';
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger transactions_search_text_on_insert after insert on transactions
      referencing new table as changed for each statement execute function transactions_search_text_refresh()`);
    this.addSql(`create trigger transactions_search_text_on_update after update on transactions
      referencing old table as previous new table as changed
      for each statement execute function transactions_search_text_refresh()`);
    this.addSql(`
      create function merchants_search_text_refresh() returns trigger language plpgsql as $$
      begin
        update entries e set search_text = entry_search_text(e.name, e.notes, r.name)
          from renamed r join previous p on p.id = r.id and p.name is distinct from r.name
            join transactions t on t.merchant_id = r.id
          where e.entryable_id = t.id and e.entryable_type = 'Transaction';
        return null;
      end $$`);
    this.addSql(`create trigger merchants_search_text_on_rename after update on merchants
      referencing old table as previous new table as renamed
      for each statement execute function merchants_search_text_refresh()`);
    this.addSql(`
      update entries e set search_text = entry_search_text(e.name, e.notes,
        (select m.name from transactions t join merchants m on m.id = t.merchant_id where t.id = e.entryable_id))`);
    this.addSql(`alter table entries alter column search_text set not null`);
    // Only transactions are searched; the family comes first so one family's search never walks
    // another's postings.
    this.addSql(`create index entries_transaction_search_idx on entries using gin (family_id, search_text gin_trgm_ops)
      where entryable_type = 'Transaction'`);
    this.addSql(`drop index entries_name_trgm_idx`);
    this.addSql(`drop index entries_notes_trgm_idx`);
  }
}
