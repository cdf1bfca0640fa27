import { Migration } from '@mikro-orm/migrations';

/** The base schema: households, people and credentials, accounts and their entries. */
export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists pg_trgm`);
    this.addSql(`
      create table families (
        id uuid primary key,
        name text not null,
        currency char(3) not null default 'USD',
        locale text not null default 'en-US',
        date_format text not null default '%Y-%m-%d',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table users (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        email text not null,
        password_hash text not null,
        first_name text,
        last_name text,
        ai_enabled boolean not null default false,
        otp_required boolean not null default false,
        active boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index users_email_key on users (lower(email))`);
    this.addSql(`create index users_family_id_idx on users (family_id)`);
    this.addSql(`
      create table api_keys (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        key_digest text not null unique,
        scope text not null check (scope in ('read', 'read_write')),
        expires_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index api_keys_user_id_idx on api_keys (user_id)`);
    this.addSql(`
      create table accounts (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        name text not null,
        account_type text not null check (account_type in ('depository', 'investment', 'crypto',
          'property', 'vehicle', 'other_asset', 'credit_card', 'loan', 'other_liability')),
        subtype text,
        currency char(3) not null,
        balance numeric(19,4) not null default 0,
        status text not null default 'active'
          check (status in ('active', 'draft', 'disabled', 'pending_deletion')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index accounts_family_id_idx on accounts (family_id, name)`);
    this.addSql(`
      create table categories (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        name text not null,
        color text not null,
        icon text,
        parent_id uuid references categories (id) on delete set null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index categories_family_name_key on categories (family_id, lower(name))`);
    this.addSql(`
      create table merchants (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        name text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index merchants_family_name_key on merchants (family_id, lower(name))`);
    this.addSql(`create index merchants_name_trgm_idx on merchants using gin (name gin_trgm_ops)`);
    this.addSql(`
      create table tags (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        name text not null,
        color text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index tags_family_name_key on tags (family_id, lower(name))`);
    this.addSql(`
      create table securities (
        id uuid primary key,
        family_id uuid references families (id) on delete cascade,
        ticker text not null,
        name text,
        exchange_operating_mic text,
        kind text not null default 'standard' check (kind in ('standard', 'cash')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index securities_ticker_key on securities
      (coalesce(family_id, '00000000-0000-0000-0000-000000000000'), upper(ticker), coalesce(exchange_operating_mic, ''))`);
    this.addSql(`
      create table transactions (
        id uuid primary key,
        category_id uuid references categories (id) on delete set null,
        merchant_id uuid references merchants (id) on delete set null,
        kind text not null default 'standard',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index transactions_category_id_idx on transactions (category_id)`);
    this.addSql(`create index transactions_merchant_id_idx on transactions (merchant_id)`);
    this.addSql(`
      create table valuations (
        id uuid primary key,
        kind text not null default 'reconciliation',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table trades (
        id uuid primary key,
        security_id uuid not null references securities (id),
        qty numeric(24,8) not null,
        price numeric(19,4) not null,
        fee numeric(19,4) not null default 0,
        currency char(3) not null,
        investment_activity_label text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index trades_security_id_idx on trades (security_id)`);
    this.addSql(`
      create table entries (
        id uuid primary key,
        family_id uuid not null references families (id) on delete cascade,
        account_id uuid not null references accounts (id) on delete cascade,
        entryable_type text not null check (entryable_type in ('Transaction', 'Valuation', 'Trade')),
        entryable_id uuid not null unique,
        amount numeric(19,4) not null,
        currency char(3) not null,
        date date not null,
        name text not null,
        notes text,
        excluded boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    // The transaction list's default order, scoped by family: serves the unfiltered page.
    this.addSql(`create index entries_family_listing_idx on entries
      (family_id, entryable_type, date desc, created_at desc, id)`);
    this.addSql(`create index entries_account_listing_idx on entries
      (account_id, entryable_type, date desc, created_at desc)`);
    this.addSql(`create index entries_family_abs_amount_idx on entries (family_id, entryable_type, abs(amount))`);
    this.addSql(`create index entries_name_trgm_idx on entries using gin (name gin_trgm_ops)`);
    this.addSql(`create index entries_notes_trgm_idx on entries using gin (notes gin_trgm_ops)`);
    this.addSql(`
      create table taggings (
        id uuid primary key,
        tag_id uuid not null references tags (id) on delete cascade,
        taggable_type text not null,
        taggable_id uuid not null,
        created_at timestamptz not null default now(),
        unique (taggable_type, taggable_id, tag_id)
      )`);
    this.addSql(`create index taggings_tag_id_idx on taggings (tag_id, taggable_type)`);
  }
}
