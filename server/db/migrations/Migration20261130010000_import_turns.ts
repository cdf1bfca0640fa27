import { Migration } from '@mikro-orm/migrations';

/**
 * Imports take turns (docs/imports.md#turns): the CSV is read by a job (`staging`), each family's
 * reading, writing and reverting run one at a time in the order asked (`queued_at`), and the one
 * import whose job is queued or running holds the family's turn (`holds_turn`, one per family).
 * An import created with `publish: "true"` goes on to `importing` once read (`publish_when_read`).
 * Unpublished imports expire (`expired`); an index finds the candidates.
 */
export class Migration20261130010000_import_turns extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table imports drop constraint imports_status_check`);
    this.addSql(`alter table imports add constraint imports_status_check check (status in ('staging', 'pending',
      'importing', 'complete', 'failed', 'reverting', 'revert_failed', 'expired'))`);
    this.addSql(`alter table imports add column queued_at timestamptz`);
    this.addSql(`alter table imports add column holds_turn boolean not null default false`);
    this.addSql(`alter table imports add column publish_when_read boolean not null default false`);
    // Imports already running keep going: per family the oldest holds the turn, the others wait for it.
    this.addSql(`
      with ranked as (
        select id, row_number() over (partition by family_id order by updated_at, id) as n
        from imports where status in ('importing', 'reverting')
      )
      update imports i set holds_turn = r.n = 1, queued_at = case when r.n = 1 then null else i.updated_at end
      from ranked r where r.id = i.id`);
    this.addSql(`alter table imports add constraint imports_turn_check
      check ((not holds_turn and queued_at is null) or status in ('staging', 'importing', 'reverting'))`);
    this.addSql(`create unique index imports_family_turn_key on imports (family_id) where holds_turn`);
    this.addSql(
      `create index imports_family_queue_idx on imports (family_id, queued_at, id) where queued_at is not null`,
    );
    this.addSql(`create index imports_expiry_idx on imports (updated_at) where status in ('pending', 'failed')`);
  }
}
