import { Migration } from '@mikro-orm/migrations';

/**
 * ExchangeRateImport (docs/imports.md): the import type, the import that last wrote each rate,
 * and the value each rate had before an import replaced it, so that a revert puts it back. And
 * stale marks that stay fast for imports of many rates.
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

    // The stale marks of migration 20261129000000, unchanged in what they mark, but reading the
    // changed rows once: first reduced to one row per family and currency (per security and
    // family for prices), then matched with accounts. They matched every changed row with every
    // account and scanned the account's entries for each pair: an ECB history (200,000 rates)
    // on a family with an account of 20,000 entries ran for more than ten minutes.
    this.addSql(`
      create or replace function exchange_rates_mark_changed() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', m.account_id, 'date', m.date)), '[]')
            from (select a.id as account_id, min(c.date) as date
                    from (select changed.family_id, side.currency, min(changed.date) as date
                            from changed, lateral (values (changed.from_currency), (changed.to_currency)) side (currency)
                           group by changed.family_id, side.currency) c
                    join accounts a on a.family_id = c.family_id and a.currency <> c.currency
                   where exists (select 1 from entries e where e.account_id = a.id and e.currency = c.currency)
                      or exists (select 1 from holdings h where h.account_id = a.id and h.currency = c.currency)
                   group by a.id) m));
        return null;
      end $$`);
    this.addSql(`
      create or replace function security_prices_mark_changed() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', m.account_id, 'date', m.date)), '[]')
            from (select e.account_id, min(c.date) as date
                    from (select security_id, family_id, min(date) as date from changed group by security_id, family_id) c
                    join trades t on t.security_id = c.security_id
                    join entries e on e.entryable_id = t.id and (c.family_id is null or e.family_id = c.family_id)
                   group by e.account_id) m));
        return null;
      end $$`);
  }
}
