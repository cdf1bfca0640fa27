import { Migration } from '@mikro-orm/migrations';

/**
 * An import's CSV moves to a table of its own, `import_files`, which the import points at
 * (`file_id`). A large upload's CSV is stored by the API's body thread on a connection of its own,
 * before the request's transaction creates the import, so the 10 MiB never pass through the event
 * loop's heap (docs/imports.md#limits). A file goes when its import is deleted or expires (the
 * triggers below); one no import took (its request failed or was a replay) is swept by the hourly
 * `import_expire`.
 */
export class Migration20261205010000_import_files extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table import_files (
      id uuid primary key,
      content text not null,
      created_at timestamptz not null default now()
    )`);
    // As the column it replaces: stored as sent, compressing 10 MiB costs a backend 0.3 s.
    this.addSql(`alter table import_files alter column content set storage external`);
    this.addSql(`alter table imports add column file_id uuid unique references import_files (id)`);
    this.addSql(`insert into import_files (id, content, created_at)
      select id, raw_file_content, created_at from imports where raw_file_content <> ''`);
    this.addSql(`update imports set file_id = id where raw_file_content <> ''`);
    this.addSql(`alter table imports drop column raw_file_content`);
    this.addSql(`create function import_file_release() returns trigger language plpgsql as $$
      begin
        delete from import_files where id = old.file_id;
        return null;
      end $$`);
    this.addSql(`create trigger imports_file_release_on_delete after delete on imports
      for each row when (old.file_id is not null) execute function import_file_release()`);
    this.addSql(`create trigger imports_file_release_on_update after update of file_id on imports
      for each row when (old.file_id is not null and old.file_id is distinct from new.file_id)
      execute function import_file_release()`);
  }
}
