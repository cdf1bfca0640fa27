import { Migration } from '@mikro-orm/migrations';

/**
 * Each daily balance keeps the rate into its family's currency of its day (docs/money.md#net-worth),
 * so the balance sheet multiplies stored figures instead of looking a rate up per account and day.
 * A rate between an account's currency and its family's now also marks the account stale from its
 * date (the rest of exchange_rates_mark_changed is as migration 20261129010000 left it), and every
 * account with a currency of its own is recomputed once to fill the column.
 */
export class Migration20261129030000_family_rates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table balances add column family_rate numeric`);
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
                   group by a.id
                  union all
                  select a.id, min(c.date)
                    from changed c join families f on f.id = c.family_id
                    join accounts a on a.family_id = c.family_id
                   where (a.currency = c.from_currency and f.currency = c.to_currency)
                      or (a.currency = c.to_currency and f.currency = c.from_currency)
                   group by a.id) m));
        return null;
      end $$`);
    this.addSql(`update accounts a set balances_stale_from = '-infinity'
      from families f where f.id = a.family_id and f.currency <> a.currency`);
    this.addSql(`update balances b set family_rate = 1 from accounts a join families f on f.id = a.family_id
      where a.id = b.account_id and f.currency = a.currency`);
  }
}
