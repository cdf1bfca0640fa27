import { Migration } from '@mikro-orm/migrations';

/**
 * A transaction may carry the client's own id (`external_id`) and where it comes from (`source`):
 * one account holds at most one entry per pair, which makes a repeated create idempotent
 * (docs/api-decisions.md#transactions). The pair is whole or absent, so the unique index sees every
 * id (a null source would make two equal ids distinct).
 */
export class Migration20261201010000_transaction_external_ids extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table entries add column external_id varchar(255), add column source varchar(64),
      add constraint entries_external_id_with_source check ((external_id is null) = (source is null))`);
    this.addSql(`create unique index entries_account_source_external_id_unique
      on entries (account_id, source, external_id) where external_id is not null`);
  }
}
