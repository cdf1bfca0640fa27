import { Migration } from '@mikro-orm/migrations';

/**
 * Holdings are derived by the account sync job (never written by handlers): one row per account,
 * security and date on which the position changed, plus today's. Security prices are the market
 * data the sync values positions with (the latest trade price stands in where none is known).
 */
export class Migration20261122040000_holdings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table security_prices (
        security_id uuid not null references securities (id) on delete cascade,
        date date not null,
        price numeric(19,4) not null,
        currency text not null,
        primary key (security_id, date)
      )`);
    this.addSql(`
      create table holdings (
        id uuid primary key default gen_random_uuid(),
        account_id uuid not null references accounts (id) on delete cascade,
        security_id uuid not null references securities (id) on delete cascade,
        date date not null,
        qty numeric(24,8) not null,
        price numeric(19,4) not null,
        amount numeric(19,4) not null,
        avg_cost numeric(19,4),
        currency text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (account_id, security_id, date)
      )`);
    // The list: an account's holdings in date order, a page at a time.
    this.addSql(`create index holdings_account_date_idx on holdings (account_id, date, security_id)`);
  }
}
