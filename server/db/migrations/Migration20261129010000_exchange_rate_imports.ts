import { Migration } from '@mikro-orm/migrations';

/**
 * ExchangeRateImport (docs/imports.md): the import type, the import that last wrote each rate,
 * and the value each rate had before an import replaced it, so that a revert puts it back.
 */
export class Migration20261129010000_exchange_rate_imports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table imports drop constraint imports_type_check`);
    this.addSql(`alter table imports add constraint imports_type_check check (type in ('TransactionImport',
      'TradeImport', 'AccountImport', 'ExternalImport', 'CategoryImport', 'RuleImport', 'ExchangeRateImport'))`);
    this.addSql(`alter table exchange_rates add column import_id uuid references imports (id) on delete set null`);
    this.addSql(`create index exchange_rates_import_id_idx on exchange_rates (import_id) where import_id is not null`);
    // One row per rate an import replaced: what it was, and which import (if any) had written that.
    this.addSql(`
      create table exchange_rate_replacements (
        import_id uuid not null references imports (id) on delete cascade,
        exchange_rate_id uuid not null references exchange_rates (id) on delete cascade,
        rate numeric(22,12) not null,
        source text not null,
        replaced_import_id uuid references imports (id) on delete set null,
        primary key (import_id, exchange_rate_id)
      )`);
    this.addSql(`create index exchange_rate_replacements_replaced_idx on exchange_rate_replacements
      (replaced_import_id) where replaced_import_id is not null`);
  }
}
