import { Migration } from '@mikro-orm/migrations';

/**
 * An entry inserted with its search text keeps it: the row trigger that looks the text up (a
 * PL/pgSQL call and a merchant lookup per row) runs only for rows inserted without one. The one
 * way a transaction is written (`server/transactions/transaction.bulk-insert.ts`) gives it,
 * computed by the same `entry_search_text`; valuations and trades leave it to the trigger. A
 * changed name or note is still recomputed by the trigger. Measured on 40,000-row inserts into
 * `entries`: about a quarter of the statement's time (bench/README.md, CSV import).
 */
export class Migration20261204020000_search_text_given extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop trigger entries_search_text on entries`);
    this.addSql(`create trigger entries_search_text_on_insert before insert on entries
      for each row when (new.search_text is null) execute function entries_search_text_set()`);
    this.addSql(`create trigger entries_search_text_on_update before update of name, notes on entries
      for each row execute function entries_search_text_set()`);
  }
}
