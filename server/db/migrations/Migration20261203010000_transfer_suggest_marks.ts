import { Migration } from '@mikro-orm/migrations';

/**
 * The `transfer_suggest` job looks only at what changed since its last run for the family
 * (docs/api-decisions.md#transfer-suggestions):
 * - `transfer_suggest_marks`: per family, the lowest transaction running at the last run's
 *   snapshot (of this database). Every transaction id below it had ended when that run looked, so an entry whose row version was written by a
 *   transaction at or above it is one the run may not have seen.
 * - `transfer_suggest_pending`: what makes old pairs possible without writing an entry, recorded
 *   by triggers and taken by the next run: a transaction freed by a deleted transfer (rejected,
 *   unlinked, its other side deleted, overtaken), and a changed rate (the outflows in either
 *   currency whose date's rate it can be).
 * - The index by absolute amount (the lookup of a pair's other side, and the transaction list's
 *   amount filter) gains the date: a lookup reads the window's rows of the amount band in the
 *   index instead of fetching every row of the band, across all years, from the table. A
 *   separate index by date would serve the lookup better but cost every insert of an entry.
 */
export class Migration20261203010000_transfer_suggest_marks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index entries_family_abs_amount_idx`);
    this.addSql(`create index entries_family_abs_amount_idx on entries (family_id, entryable_type, abs(amount), date)`);
    this.addSql(`
      create table transfer_suggest_marks (
        family_id uuid primary key references families (id) on delete cascade,
        examined_below xid8 not null
      )`);
    this.addSql(`
      create table transfer_suggest_pending (
        family_id uuid not null references families (id) on delete cascade,
        entry_id uuid,
        currency char(3),
        first_date date,
        last_date date,
        check ((entry_id is null) = (currency is not null and first_date is not null and last_date is not null))
      )`);
    this.addSql(`create index transfer_suggest_pending_family_idx on transfer_suggest_pending (family_id)`);
    // Both sides of every deleted transfer, whatever deleted it. A family being deleted (its row
    // already gone when the cascade reaches its transfers or rates) records nothing.
    this.addSql(`
      create function transfers_free_sides() returns trigger language plpgsql as $$
      begin
        insert into transfer_suggest_pending (family_id, entry_id)
        select g.family_id, side.id from gone g, lateral (values (g.outflow_entry_id), (g.inflow_entry_id)) side (id)
         where exists (select 1 from families f where f.id = g.family_id);
        return null;
      end $$`);
    this.addSql(`create trigger transfers_free_sides_on_delete after delete on transfers
      referencing old table as gone for each statement execute function transfers_free_sides()`);
    // A rate of date D is the rate of D to D + 14 (exchange_rate_on), in both directions. An update
    // changes the rate alone (the pair and date are the unique key), so the new rows say which.
    this.addSql(`
      create function exchange_rates_pend_suggestions() returns trigger language plpgsql as $$
      begin
        insert into transfer_suggest_pending (family_id, currency, first_date, last_date)
        select c.family_id, side.currency, min(c.date), max(c.date) + 14
          from changed c, lateral (values (c.from_currency), (c.to_currency)) side (currency)
         where exists (select 1 from families f where f.id = c.family_id)
         group by c.family_id, side.currency;
        return null;
      end $$`);
    for (const [event, table] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ]) {
      this.addSql(`create trigger exchange_rates_pend_suggestions_on_${event} after ${event} on exchange_rates
        referencing ${table} table as changed for each statement execute function exchange_rates_pend_suggestions()`);
    }
  }
}
