import { Migration } from '@mikro-orm/migrations';

/**
 * CSV imports: the import with its CSV text and configuration, its rows as read (cells for
 * people, parsed values for the job, problems per row), the records each import created (so a
 * revert removes exactly those), and the rules a RuleImport brings.
 */
export class Migration20261126010000_imports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table imports (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        type text not null check (type in ('TransactionImport', 'TradeImport', 'AccountImport',
          'ExternalImport', 'CategoryImport', 'RuleImport')),
        status text not null default 'pending' check (status in ('pending', 'importing', 'complete',
          'failed', 'reverting', 'revert_failed')),
        account_id uuid references accounts (id) on delete set null,
        configuration jsonb not null,
        raw_file_content text not null,
        rows_count integer not null default 0,
        valid_rows_count integer not null default 0,
        invalid_rows_count integer not null default 0,
        imported_count integer not null default 0,
        error text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index imports_family_listing_idx on imports (family_id, created_at desc, id)`);
    this.addSql(`
      create table import_rows (
        import_id uuid not null references imports (id) on delete cascade,
        row_number integer not null,
        line integer not null,
        valid boolean not null,
        fields jsonb not null,
        "values" jsonb,
        errors jsonb not null default '[]',
        primary key (import_id, row_number)
      )`);
    this.addSql(`create index import_rows_invalid_idx on import_rows (import_id, row_number) where not valid`);
    // What an import created: a revert deletes these rows and nothing else. Entries carry the id
    // without a foreign key: an import is never deleted while its entries exist (both go only with
    // their family), and the check would cost every imported row a lookup (bench/README.md).
    this.addSql(`alter table entries add column import_id uuid`);
    for (const table of ['accounts', 'categories', 'merchants', 'tags']) {
      this.addSql(`alter table ${table} add column import_id uuid references imports (id) on delete set null`);
    }
    for (const table of ['entries', 'accounts', 'categories', 'merchants', 'tags']) {
      this.addSql(`create index ${table}_import_id_idx on ${table} (import_id) where import_id is not null`);
    }
    this.addSql(`
      create table rules (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        name text not null,
        resource_type text not null check (resource_type = 'transaction'),
        active boolean not null default true,
        effective_date date,
        conditions jsonb not null,
        actions jsonb not null,
        import_id uuid references imports (id) on delete set null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index rules_family_name_key on rules (family_id, lower(name))`);
  }
}
