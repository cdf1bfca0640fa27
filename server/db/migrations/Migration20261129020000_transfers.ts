import { Migration } from '@mikro-orm/migrations';

/**
 * Transfers between a family's accounts: a pair of transactions (their entries), an outflow and
 * an inflow, either confirmed by the household or suggested by the `transfer_suggest` job.
 * - Deleting either entry deletes the transfer (the other transaction stays as an ordinary one).
 * - A transaction is on each side of at most one transfer per status: of concurrent links or
 *   confirmations of one transaction the unique index lets exactly one commit, and suggestions
 *   never overlap (the job inserts with `on conflict do nothing`).
 * - Rejected pairs (and unlinked ones) are remembered so that the job never suggests them again.
 */
export class Migration20261129020000_transfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table transfers (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        outflow_entry_id uuid not null references entries (id) on delete cascade,
        inflow_entry_id uuid not null references entries (id) on delete cascade,
        status text not null check (status in ('suggested', 'confirmed')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (outflow_entry_id <> inflow_entry_id)
      )`);
    this.addSql(`create unique index transfers_outflow_status_idx on transfers (outflow_entry_id, status)`);
    this.addSql(`create unique index transfers_inflow_status_idx on transfers (inflow_entry_id, status)`);
    this.addSql(`create index transfers_family_idx on transfers (family_id, status)`);
    this.addSql(`
      create table transfer_rejections (
        outflow_entry_id uuid not null references entries (id) on delete cascade,
        inflow_entry_id uuid not null references entries (id) on delete cascade,
        family_id uuid not null references families (id) on delete cascade,
        created_at timestamptz not null default now(),
        primary key (outflow_entry_id, inflow_entry_id)
      )`);
    // For the cascade when an inflow's entry is deleted.
    this.addSql(`create index transfer_rejections_inflow_idx on transfer_rejections (inflow_entry_id)`);
    // A transaction joining or leaving a confirmed transfer stops or starts being income or expense:
    // the daily balances of both sides are stale from its date (docs/money.md#incremental-syncs).
    // Suggestions change nothing and mark nothing.
    this.addSql(`
      create function transfers_mark_changed() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', e.account_id, 'date', e.date)), '[]')
            from changed c join entries e on e.id in (c.outflow_entry_id, c.inflow_entry_id)
           where c.status = 'confirmed'));
        return null;
      end $$`);
    for (const [event, table] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ]) {
      this.addSql(`create trigger transfers_stale_on_${event} after ${event} on transfers
        referencing ${table} table as changed for each statement execute function transfers_mark_changed()`);
    }
  }
}
