import { Migration } from '@mikro-orm/migrations';

/**
 * An import's CSV is stored as sent, not compressed into TOAST (docs/imports.md#limits): pglz
 * compressing 10 MiB took about 0.13-0.4 s of CPU in the upload request's own backend, which
 * cannot be niced like a job's, and a burst of uploads slowed every other request on a small
 * machine. The price is disk: a CSV takes its own size instead of about a third of it, and it is
 * removed with the import or when the import expires. Existing texts keep their compression until
 * rewritten.
 */
export class Migration20261202010000_import_text_uncompressed extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table imports alter column raw_file_content set storage external`);
  }
}
