import { Migration } from '@mikro-orm/migrations';
import { minorUnitExceptions } from '../../core/money/minor-units.ts';

/** `code in ('A', 'B')` for the currencies whose minor unit has `digits` places. */
function currenciesWith(digits: number): string {
  const codes = [...minorUnitExceptions()].filter(([, places]) => places === digits).map(([code]) => `'${code}'`);
  return `code in (${codes.join(', ')})`;
}

/**
 * Money that adds up (docs/money.md): exchange rates per family, a transaction's own rate,
 * family-scoped security prices, one balance row per account and day, and the date from which an
 * account's balances are stale. Triggers mark that date on every change that moves a balance, so
 * no writer can forget it and the account sync recomputes only from there.
 */
export class Migration20261129000000_money extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function currency_minor_digits(code text) returns int language sql immutable parallel safe as $$
        select case when ${currenciesWith(0)} then 0 when ${currenciesWith(3)} then 3 else 2 end
      $$`);
    // Banker's rounding: converted amounts and a trade's cash amount are rounded half to even. One
    // expression without FROM, so PostgreSQL inlines it into the calling query (a call costs ~8x more).
    this.addSql(`
      create function round_half_even(v numeric, places int) returns numeric
        language sql immutable parallel safe as $$
        select round(case when abs(v * power(10::numeric, places) - trunc(v * power(10::numeric, places))) = 0.5
                           and mod(trunc(v * power(10::numeric, places)), 2) = 0
                     then trunc(v * power(10::numeric, places)) else round(v * power(10::numeric, places)) end
                     / power(10::numeric, places), places)
      $$`);

    // A household's own rates: a shared table would let one family change another's balances.
    this.addSql(`
      create table exchange_rates (
        id uuid primary key default gen_random_uuid(),
        family_id uuid not null references families (id) on delete cascade,
        from_currency char(3) not null,
        to_currency char(3) not null,
        date date not null,
        rate numeric(22,12) not null check (rate > 0 and rate <= 1000000000),
        source text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (from_currency <> to_currency),
        unique (family_id, from_currency, to_currency, date)
      )`);
    // The one rate rule: the pair's rate of the latest date on or before the day, at most 14 days
    // back, the inverse pair counting as 1/rate (the direct pair wins on the same date). Null when
    // none is known: nothing is invented. The codes are bpchar like the columns, so the lookups use
    // the unique index (compared as text, each call scanned the table: 7x slower).
    this.addSql(`
      create function exchange_rate_on(family uuid, from_code bpchar, to_code bpchar, on_date date) returns numeric
        language sql stable parallel safe as $$
        select case when from_code = to_code then 1::numeric else (
          select found.rate from (
            (select r.rate, r.date, 0 as inverse from exchange_rates r
              where r.family_id = family and r.from_currency = from_code and r.to_currency = to_code
                and r.date between on_date - 14 and on_date
              order by r.date desc limit 1)
            union all
            (select 1 / r.rate, r.date, 1 from exchange_rates r
              where r.family_id = family and r.from_currency = to_code and r.to_currency = from_code
                and r.date between on_date - 14 and on_date
              order by r.date desc limit 1)
          ) found order by found.date desc, found.inverse limit 1) end
      $$`);

    // The rate a transaction was booked at, when the client gave one (from its currency to its account's).
    this.addSql(`alter table entries add column exchange_rate numeric(22,12)
      check (exchange_rate > 0 and exchange_rate <= 1000000000)`);

    // Prices become a family's own too (null: shared market data no request can write).
    this.addSql(`alter table security_prices drop constraint security_prices_pkey`);
    this.addSql(`alter table security_prices
      add column id uuid not null default gen_random_uuid() primary key,
      add column family_id uuid references families (id) on delete cascade,
      add column created_at timestamptz not null default now(),
      add column updated_at timestamptz not null default now()`);
    this.addSql(`create unique index security_prices_one_per_day on security_prices
      (security_id, date, coalesce(family_id, '00000000-0000-0000-0000-000000000000'))`);

    this.addSql(`
      alter table accounts
        add column cash_balance numeric(19,4) not null default 0,
        add column holdings_value numeric(19,4) not null default 0,
        add column balance_complete boolean not null default true,
        add column missing_exchange_rates jsonb not null default '[]',
        add column balances_stale_from date`);
    this.addSql(`update accounts set cash_balance = balance, balances_stale_from = '-infinity'`);

    this.addSql(`
      create table balances (
        id uuid primary key default gen_random_uuid(),
        account_id uuid not null references accounts (id) on delete cascade,
        date date not null,
        currency char(3) not null,
        balance numeric(19,4) not null,
        cash_balance numeric(19,4) not null,
        holdings_value numeric(19,4) not null,
        inflows numeric(19,4) not null,
        outflows numeric(19,4) not null,
        -- Transactions only (no trades, valuations, excluded entries or transfers): the day's income
        -- and expenses, which the balance sheet's flows sum instead of reading every entry.
        income numeric(19,4) not null default 0,
        expenses numeric(19,4) not null default 0,
        complete boolean not null,
        missing_exchange_rates jsonb not null default '[]',
        -- The part of missing_exchange_rates that later days inherit: flows since the last valuation
        -- (a holding's missing rate counts on its own day only).
        carried_missing_rates jsonb not null default '[]',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (account_id, date)
      )`);

    // Marks: the earliest date whose balance may have changed. Account rows are locked in id
    // order first (the lock order of every write), then only moved to an earlier date.
    this.addSql(`
      create function mark_balances_stale(marks jsonb) returns void language plpgsql as $$
      begin
        perform 1 from accounts a
          where a.id in (select (m->>'account_id')::uuid from jsonb_array_elements(marks) m)
          order by a.id for update;
        update accounts a set balances_stale_from = least(coalesce(a.balances_stale_from, m.first_date), m.first_date)
          from (select (m->>'account_id')::uuid as account_id, min((m->>'date')::date) as first_date
                  from jsonb_array_elements(marks) m group by 1) m
         where a.id = m.account_id
           and a.balances_stale_from is distinct from least(coalesce(a.balances_stale_from, m.first_date), m.first_date);
      end $$`);
    this.addSql(`
      create function entries_mark_changed() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((select coalesce(jsonb_agg(jsonb_build_object('account_id', account_id, 'date', date)), '[]')
                                       from changed));
        return null;
      end $$`);
    this.addSql(`create trigger entries_stale_on_insert after insert on entries
      referencing new table as changed for each statement execute function entries_mark_changed()`);
    this.addSql(`create trigger entries_stale_on_delete after delete on entries
      referencing old table as changed for each statement execute function entries_mark_changed()`);
    // An update moves balances only when what they read changed (a new name or note does not).
    this.addSql(`
      create function entries_mark_updated() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', side.account_id, 'date', side.date)), '[]')
            from before_rows o join after_rows n on n.id = o.id,
                 lateral (values (o.account_id, o.date), (n.account_id, n.date)) side (account_id, date)
           where (o.account_id, o.date, o.amount, o.currency, o.exchange_rate, o.excluded)
                 is distinct from (n.account_id, n.date, n.amount, n.currency, n.exchange_rate, n.excluded)));
        return null;
      end $$`);
    this.addSql(`create trigger entries_stale_on_update after update on entries
      referencing old table as before_rows new table as after_rows
      for each statement execute function entries_mark_updated()`);
    // A trade's security or quantity moves holdings even when its cash amount stays.
    this.addSql(`
      create function trades_mark_updated() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', e.account_id, 'date', e.date)), '[]')
            from before_rows o join after_rows n on n.id = o.id join entries e on e.entryable_id = n.id
           where (o.security_id, o.qty, o.price, o.currency) is distinct from (n.security_id, n.qty, n.price, n.currency)));
        return null;
      end $$`);
    this.addSql(`create trigger trades_stale_on_update after update on trades
      referencing old table as before_rows new table as after_rows
      for each statement execute function trades_mark_updated()`);
    // A rate moves the balances of the family's accounts that hold money in either currency of the pair.
    this.addSql(`
      create function exchange_rates_mark_changed() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', m.account_id, 'date', m.date)), '[]')
            from (select a.id as account_id, min(c.date) as date
                    from changed c join accounts a on a.family_id = c.family_id
                   where exists (select 1 from entries e where e.account_id = a.id and e.currency <> a.currency
                                   and e.currency in (c.from_currency, c.to_currency))
                      or exists (select 1 from holdings h where h.account_id = a.id and h.currency <> a.currency
                                   and h.currency in (c.from_currency, c.to_currency))
                   group by a.id) m));
        return null;
      end $$`);
    for (const [event, table] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ]) {
      this.addSql(`create trigger exchange_rates_stale_on_${event} after ${event} on exchange_rates
        referencing ${table} table as changed for each statement execute function exchange_rates_mark_changed()`);
    }
    // A price moves the accounts that traded the security (the family's own, or every family for a shared price).
    this.addSql(`
      create function security_prices_mark_changed() returns trigger language plpgsql as $$
      begin
        perform mark_balances_stale((
          select coalesce(jsonb_agg(jsonb_build_object('account_id', m.account_id, 'date', m.date)), '[]')
            from (select e.account_id, min(c.date) as date
                    from changed c join trades t on t.security_id = c.security_id
                    join entries e on e.entryable_id = t.id and (c.family_id is null or e.family_id = c.family_id)
                   group by e.account_id) m));
        return null;
      end $$`);
    for (const [event, table] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ]) {
      this.addSql(`create trigger security_prices_stale_on_${event} after ${event} on security_prices
        referencing ${table} table as changed for each statement execute function security_prices_mark_changed()`);
    }
  }
}
