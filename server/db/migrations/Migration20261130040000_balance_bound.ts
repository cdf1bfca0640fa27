import { Migration } from '@mikro-orm/migrations';
import { BALANCE_BOUND_STATE, BOUNDS } from '../../core/money/bounds.ts';

/**
 * The balance bound (docs/money.md#the-balance-bound): an account's reach, what its entries and
 * holdings can add up to in its currency, stays within BOUNDS.balance, so no balance, day's flow or
 * holding value the account sync derives can overflow its `numeric(19,4)` column, whatever the
 * dates, valuations and rates. Every write that can raise a reach (entries, trades, prices, rates)
 * queues its accounts in a trigger and they are checked when it commits; a refusal is the error
 * BALANCE_BOUND_STATE naming the account. The sizes of the entries are kept per account and
 * currency (`account_entry_totals`) and the holdings' part per account (`account_holdings_reach`,
 * recomputed when trades, prices or rates change), so checking a transaction reads a few rows, not
 * the account's entries or trades.
 */
export class Migration20261130040000_balance_bound extends Migration {
  override async up(): Promise<void> {
    // Entries booked at their own rate count in the account's currency at that rate, as the sync
    // converts them; the others in their own currency, converted when the reach is read.
    this.addSql(`
      create table account_entry_totals (
        account_id uuid not null references accounts (id) on delete cascade,
        currency char(3) not null,
        amount numeric not null,
        entries bigint not null,
        primary key (account_id, currency)
      )`);
    this.addSql(`
      create function entry_total_part(entry_amount numeric, entry_currency bpchar, entry_rate numeric,
                                       account_currency bpchar)
        returns table (currency bpchar, amount numeric) language sql immutable parallel safe as $$
        select case when entry_rate is null or entry_currency = account_currency then entry_currency
                    else account_currency end,
               abs(case when entry_rate is null or entry_currency = account_currency then entry_amount
                        else round_half_even(entry_amount * entry_rate, currency_minor_digits(account_currency)) end)
      $$`);
    // The highest rate a conversion from one currency into another can use on any date: the
    // largest stored rate of the pair, or 1/rate of the inverse pair (exchange_rate_on()'s sources).
    this.addSql(`
      create function highest_rate(family uuid, from_code bpchar, to_code bpchar) returns numeric
        language sql stable parallel safe as $$
        select case when from_code = to_code then 1::numeric else greatest(
          (select max(r.rate) from exchange_rates r
            where r.family_id = family and r.from_currency = from_code and r.to_currency = to_code),
          (select max(1 / r.rate) from exchange_rates r
            where r.family_id = family and r.from_currency = to_code and r.to_currency = from_code)) end
      $$`);
    // The reach is entries_reach() + holdings_reach(). The entries' part: |opening balance| + each
    // entry's size converted at the highest rate, plus one minor unit for its rounding. Amounts
    // without any rate are left out of every balance, so out of the reach too. (PL/pgSQL keeps the
    // plans of its statements.)
    this.addSql(`
      create function entries_reach(account uuid) returns numeric language plpgsql stable as $$
      declare
        reach numeric;
      begin
        select abs(a.opening_balance) + coalesce(sum(t.amount * highest_rate(a.family_id, t.currency, a.currency)
                 + case when t.currency = a.currency then 0
                        else t.entries * power(10::numeric, -currency_minor_digits(a.currency)) end), 0)
          into reach from accounts a left join account_entry_totals t on t.account_id = a.id
         where a.id = account group by a.id;
        return coalesce(reach, 0);
      end $$`);
    // The holdings' part: every unit of a security the account traded (bought or sold: never fewer
    // than it held at any time) at the security's highest price, converted at the highest rate but
    // never below its own currency's value (the holdings row keeps that), plus one minor unit for
    // its rounding. Sums and maxima without an order: no running position to compute.
    this.addSql(`
      create function holdings_reach(account uuid) returns numeric language plpgsql stable as $$
      declare
        a record;
        held numeric;
      begin
        select id, family_id, currency, power(10::numeric, -currency_minor_digits(currency)) as minor
          into a from accounts where id = account;
        if not found or not exists (select 1 from account_entry_counts k
                                     where k.account_id = account and k.entryable_type = 'Trade' and k.entries > 0) then
          return 0;
        end if;
        with traded as materialized (
          select t.security_id, t.currency, sum(abs(t.qty)) as units, max(t.price) as price
            from entries e join trades t on t.id = e.entryable_id
           where e.account_id = account and e.entryable_type = 'Trade'
           group by t.security_id, t.currency
        ), units as (
          select security_id, sum(units) as units from traded group by security_id
        ), quotes as (
          select security_id, currency, price from traded
          union all
          select sp.security_id, sp.currency::bpchar, max(sp.price) from security_prices sp
           where sp.security_id in (select security_id from units) and (sp.family_id is null or sp.family_id = a.family_id)
           group by sp.security_id, sp.currency
        ), valued as (
          select q.security_id,
                 max(q.price * greatest(1, coalesce(highest_rate(a.family_id, q.currency, a.currency), 0))) as value
            from quotes q group by q.security_id
        )
        select coalesce(sum(u.units * v.value + a.minor), 0) into held from units u join valued v using (security_id);
        return held;
      end $$`);
    this.addSql(`
      create table account_holdings_reach (
        account_id uuid primary key references accounts (id) on delete cascade,
        amount numeric not null
      )`);
    // The check runs when the write commits, once per account however many statements the write
    // has, on its final state and after the write's own more specific checks (a sale beyond what is
    // held, a row's precision) have spoken: a deferred constraint trigger on a row per account that
    // no other transaction sees (unlogged: no row outlives its transaction).
    this.addSql(`create unlogged table balance_bound_pending (account_id uuid primary key)`);
    // Queues the accounts \`checked\` for the check at commit and forgets the holdings' part of those
    // whose trades, prices or rates changed (\`moved\`), after locking them all (id order, the lock
    // order): the check then sees every write before it, and none can slip in after it.
    this.addSql(`
      create function queue_balance_bound(checked uuid[], moved uuid[]) returns void language plpgsql as $$
      begin
        checked := coalesce(checked, '{}');
        moved := coalesce(moved, '{}');
        if cardinality(checked) + cardinality(moved) = 0 then return; end if;
        perform 1 from accounts where id = any(checked) or id = any(moved) order by id for update;
        delete from account_holdings_reach where account_id = any(moved);
        insert into balance_bound_pending (account_id) select distinct id from unnest(checked) as i(id) order by id
        on conflict do nothing;
      end $$`);
    this.addSql(`
      create function balance_bound_checked() returns trigger language plpgsql as $$
      declare
        held numeric;
        refused text;
      begin
        delete from balance_bound_pending where account_id = new.account_id;
        select amount into held from account_holdings_reach where account_id = new.account_id;
        if held is null then
          held := holdings_reach(new.account_id);
          insert into account_holdings_reach (account_id, amount) select id, held from accounts where id = new.account_id;
        end if;
        select a.name into refused from accounts a
         where a.id = new.account_id and entries_reach(a.id) + held > ${BOUNDS.balance};
        if refused is not null then
          raise exception 'the entries and holdings of an account would exceed the balance bound'
            using errcode = '${BALANCE_BOUND_STATE}', detail = refused;
        end if;
        return null;
      end $$`);
    this.addSql(`create constraint trigger balance_bound_at_commit after insert on balance_bound_pending
      deferrable initially deferred for each row execute function balance_bound_checked()`);
    // The sizes of entries added (sign 1) or removed (sign -1), per account and currency.
    this.addSql(`
      create function entry_totals_change(account_ids uuid[], amounts numeric[], currencies bpchar[], rates numeric[],
                                          signs int[]) returns void language sql as $$
        insert into account_entry_totals as t (account_id, currency, amount, entries)
          select c.account_id, p.currency, sum(c.sign * p.amount), sum(c.sign)
            from unnest(account_ids, amounts, currencies, rates, signs) as c(account_id, amount, currency, rate, sign)
            join accounts a on a.id = c.account_id
            cross join lateral entry_total_part(c.amount, c.currency, c.rate, a.currency) p
           group by c.account_id, p.currency
        on conflict (account_id, currency) do update
          set amount = t.amount + excluded.amount, entries = t.entries + excluded.entries
      $$`);
    // Only an entry added or changed can raise a reach (a removed one lowers it); a trade's entry
    // also makes the holdings' part be computed again.
    this.addSql(`
      create function entries_within_bound() returns trigger language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          perform entry_totals_change(array_agg(account_id), array_agg(amount), array_agg(currency),
                                      array_agg(exchange_rate), array_agg(1)) from added;
          perform queue_balance_bound(array_agg(distinct account_id),
                                      array_agg(distinct account_id) filter (where entryable_type = 'Trade')) from added;
        elsif TG_OP = 'DELETE' then
          perform entry_totals_change(array_agg(account_id), array_agg(amount), array_agg(currency),
                                      array_agg(exchange_rate), array_agg(-1)) from removed;
          perform queue_balance_bound('{}', array_agg(distinct account_id) filter (where entryable_type = 'Trade'))
             from removed;
        else
          perform entry_totals_change(array_agg(s.account_id), array_agg(s.amount), array_agg(s.currency),
                                      array_agg(s.rate), array_agg(s.sign))
             from removed o join added n on n.id = o.id,
                  lateral (values (o.account_id, o.amount, o.currency, o.exchange_rate, -1),
                                  (n.account_id, n.amount, n.currency, n.exchange_rate, 1)) s (account_id, amount, currency, rate, sign)
            where (o.account_id, o.amount, o.currency, o.exchange_rate) is distinct from (n.account_id, n.amount, n.currency, n.exchange_rate);
          perform queue_balance_bound(array_agg(distinct n.account_id),
                                      array_agg(distinct s.account_id) filter (where n.entryable_type = 'Trade'))
             from removed o join added n on n.id = o.id, lateral (values (o.account_id), (n.account_id)) s (account_id)
            where (o.account_id, o.amount, o.currency, o.exchange_rate) is distinct from (n.account_id, n.amount, n.currency, n.exchange_rate);
        end if;
        return null;
      end $$`);
    // Named to fire after entries_stale_on_*, which locks the accounts of the rows (imports rely on it).
    this.addSql(`create trigger entries_within_bound_on_insert after insert on entries
      referencing new table as added for each statement execute function entries_within_bound()`);
    this.addSql(`create trigger entries_within_bound_on_delete after delete on entries
      referencing old table as removed for each statement execute function entries_within_bound()`);
    this.addSql(`create trigger entries_within_bound_on_update after update on entries
      referencing old table as removed new table as added for each statement execute function entries_within_bound()`);

    // A trade's units and price make its holdings: a trade written or changed after its entry.
    this.addSql(`
      create function trades_within_bound() returns trigger language plpgsql as $$
      begin
        perform queue_balance_bound(ids, ids) from (
          select array(select distinct e.account_id from changed c join entries e on e.entryable_id = c.id) as ids) q;
        return null;
      end $$`);
    // A price values the holdings of the accounts that traded the security (every family's, for a
    // shared price). Removing a price or a rate never raises a highest one: it is not checked, only
    // the holdings' part computed again.
    this.addSql(`
      create function security_prices_within_bound() returns trigger language plpgsql as $$
      begin
        perform queue_balance_bound(case when TG_OP = 'DELETE' then '{}' else ids end, ids) from (
          select array(select distinct e.account_id from changed c join trades t on t.security_id = c.security_id
                         join entries e on e.entryable_id = t.id and (c.family_id is null or e.family_id = c.family_id))
                   as ids) q;
        return null;
      end $$`);
    // A rate converts into an account's currency what it holds in the pair's other one.
    this.addSql(`
      create function exchange_rates_within_bound() returns trigger language plpgsql as $$
      begin
        perform queue_balance_bound(case when TG_OP = 'DELETE' then '{}'
                                         else array_agg(m.id) filter (where m.converts or m.trades) end,
                                    array_agg(m.id) filter (where m.trades))
          from (select distinct a.id,
                       exists (select 1 from account_entry_totals t where t.account_id = a.id and t.currency <> a.currency
                                 and t.currency in (c.from_currency, c.to_currency)) as converts,
                       exists (select 1 from account_entry_counts k where k.account_id = a.id
                                 and k.entryable_type = 'Trade' and k.entries > 0) as trades
                  from changed c
                  join accounts a on a.family_id = c.family_id and a.currency in (c.from_currency, c.to_currency)) m;
        return null;
      end $$`);
    for (const table of ['trades', 'security_prices', 'exchange_rates']) {
      for (const event of table === 'trades' ? ['insert', 'update'] : ['insert', 'update', 'delete']) {
        this.addSql(`create trigger ${table}_within_bound_on_${event} after ${event} on ${table}
          referencing ${event === 'delete' ? 'old' : 'new'} table as changed
          for each statement execute function ${table}_within_bound()`);
      }
    }

    this.addSql(`
      insert into account_entry_totals (account_id, currency, amount, entries)
        select e.account_id, p.currency, sum(p.amount), count(*)
          from entries e join accounts a on a.id = e.account_id
          cross join lateral entry_total_part(e.amount, e.currency, e.exchange_rate, a.currency) p
         group by e.account_id, p.currency`);
  }
}
