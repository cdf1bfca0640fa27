import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

// Issue 9, items 1-4 and 12: concurrent writes to one account answer 2xx or a documented 4xx, never
// 5xx, and leave the invariants the database promises.
let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  ({ server, household } = await startWithTwoHouseholds());
});
afterAll(() => server?.close());

type Call = Parameters<TestServer['api']['call']>;
const call = (operationId: Call[0], options: Omit<Call[1], 'key'> = {}) =>
  server.api.call(operationId, { key: household.writeKey, ...options } as Call[1]);

/** How many responses had each status, e.g. `{201: 10, 200: 10}`. */
function statuses(responses: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

const serverErrors = (responses: { status: number }[]) => responses.filter(({ status }) => status >= 500).length;

async function openAccount(account_type = 'depository', balance = 0): Promise<string> {
  const response = await call('createAccount', {
    body: { account: { name: `Account ${Math.random()}`, account_type, balance } } as never,
  });
  return response.body.data.id as string;
}

const createTransaction = (account: string, amount: number, date = '2024-05-01') =>
  call('createTransaction', {
    body: { transaction: { account_id: account, date, amount, name: `Spend ${amount}` } } as never,
  });
const updateTransaction = (id: string, transaction: Record<string, unknown>) =>
  call('updateTransaction', { params: { id }, body: { transaction } as never });
const createValuation = (account: string, date: string, amount: number) =>
  call('createValuation', { body: { valuation: { account_id: account, date, amount } } as never });

/** The invariants every scenario must leave, checked in the database itself. */
async function expectInvariants(): Promise<void> {
  const countsDiffer = await server.query(`
    select c.account_id, c.entryable_type, c.entries, count(e.id) as real
      from account_entry_counts c
      left join entries e on e.account_id = c.account_id and e.entryable_type = c.entryable_type
     group by c.account_id, c.entryable_type, c.entries
    having c.entries <> count(e.id)`);
  expect(countsDiffer).toEqual([]);
  const uncounted = await server.query(`
    select e.account_id, e.entryable_type from entries e
     where not exists (select 1 from account_entry_counts c
                        where c.account_id = e.account_id and c.entryable_type = e.entryable_type)`);
  expect(uncounted).toEqual([]);
  const orphanTaggings = await server.query(`
    select g.id from taggings g
     where g.taggable_type = 'Transaction' and not exists (select 1 from transactions t where t.id = g.taggable_id)`);
  expect(orphanTaggings).toEqual([]);
  const orphanDetails = await server.query(`
    select t.id from transactions t where not exists (select 1 from entries e where e.entryable_id = t.id)`);
  expect(orphanDetails).toEqual([]);
  const twoValuations = await server.query(`
    select account_id, date from entries where entryable_type = 'Valuation'
     group by account_id, date having count(*) > 1`);
  expect(twoValuations).toEqual([]);
  // The sizes the balance bound reads (migration 20261130040000) equal a recount of the entries.
  const totalsDiffer = await server.query(`
    with recount as (
      select e.account_id, p.currency, sum(p.amount) as amount, count(*) as entries
        from entries e join accounts a on a.id = e.account_id
        cross join lateral entry_total_part(e.amount, e.currency, e.exchange_rate, a.currency) p
       group by e.account_id, p.currency
    )
    select * from account_entry_totals t full join recount r using (account_id, currency)
     where (t.amount, t.entries) is distinct from (coalesce(r.amount, 0), coalesce(r.entries, 0))`);
  expect(totalsDiffer).toEqual([]);
}

/**
 * After the queue drains, each account's balance equals one computed here from its rows: the
 * latest valuation up to today (else the opening balance), then the later flows (an asset loses
 * an outflow). A sync lost or run on a stale view of the writes would show as a difference.
 */
async function expectBalancesRecomputed(): Promise<void> {
  await server.drainJobs();
  const wrong = await server.query(`
    with anchors as (
      select a.id, a.cash_balance, a.account_type,
             (select e.date from entries e where e.account_id = a.id and e.entryable_type = 'Valuation'
                and e.date <= current_date order by e.date desc, e.created_at desc limit 1) as anchor_date,
             coalesce((select e.amount from entries e where e.account_id = a.id and e.entryable_type = 'Valuation'
                and e.date <= current_date order by e.date desc, e.created_at desc limit 1), a.opening_balance) as anchor
        from accounts a
    )
    select id, cash_balance as balance, anchor - coalesce((
             select sum(e.amount) from entries e
              where e.account_id = anchors.id and e.entryable_type <> 'Valuation' and e.date <= current_date
                and (anchor_date is null or e.date > anchor_date)), 0) as expected
      from anchors where account_type in ('depository', 'investment')`);
  const differing = wrong.filter((row) => Number(row.balance) !== Number(row.expected));
  expect(differing).toEqual([]);
  expect(await server.query('select id from accounts where balance <> cash_balance + holdings_value')).toEqual([]);
  // The daily rows the incremental syncs left are what a sync from scratch writes.
  await expectBalancesFresh(server);
}

describe('writes to one account at once (item 1)', () => {
  it('creates and updates transactions of one account concurrently without a 5xx', async () => {
    const account = await openAccount();
    const existing = await Promise.all(Array.from({ length: 10 }, (_, i) => createTransaction(account, i + 1)));
    const responses = [];
    for (let round = 0; round < 5; round++) {
      responses.push(
        ...(await Promise.all([
          ...Array.from({ length: 10 }, (_, i) => createTransaction(account, 100 + i)),
          ...existing.map((created, i) => updateTransaction(created.body.data.id, { amount: 50 + round + i })),
        ])),
      );
    }
    expect(serverErrors(responses), JSON.stringify(statuses(responses))).toBe(0);
    expect(statuses(responses)).toEqual({ 201: 50, 200: 50 });
    await expectInvariants();
    await expectBalancesRecomputed();
  });

  it('creates transactions of one account concurrently in a family with rules, each filled in once', async () => {
    const ruled = await createHousehold(server);
    const key = ruled.writeKey;
    const account = (
      await server.api.call('createAccount', { key, body: { account: { name: 'Ruled', account_type: 'depository' } } })
    ).body.data.id as string;
    const category = (await server.api.call('createCategory', { key, body: { category: { name: 'Spending' } } })).body
      .data.id as string;
    await server.query(
      `insert into rules (id, family_id, name, resource_type, conditions, actions) values (gen_random_uuid(), $1, 'All spend',
        'transaction', '[{"condition_type": "transaction_name", "operator": "like", "value": "spend"}]', $2)`,
      [ruled.familyId, JSON.stringify([{ action_type: 'set_transaction_category', value: category }])],
    );
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        server.api.call('createTransaction', {
          key,
          body: { transaction: { account_id: account, date: '2024-05-01', amount: 10 + i, name: `Spend ${i}` } },
        }),
      ),
    );
    expect(statuses(responses)).toEqual({ 201: 20 });
    expect(new Set(responses.map((response) => response.body.data.category?.id))).toEqual(new Set([category]));
    await expectInvariants();
    await expectBalancesRecomputed();
  });

  it('updates transactions and records valuations of one account concurrently without a 5xx', async () => {
    const account = await openAccount('depository', 1000);
    const existing = await Promise.all(Array.from({ length: 10 }, (_, i) => createTransaction(account, i + 1)));
    const responses = [];
    for (let round = 0; round < 5; round++) {
      responses.push(
        ...(await Promise.all([
          ...existing.map((created, i) => updateTransaction(created.body.data.id, { amount: 20 + round + i })),
          ...Array.from({ length: 10 }, (_, i) => createValuation(account, `2024-0${1 + (i % 4)}-1${round}`, 900 + i)),
        ])),
      );
    }
    expect(serverErrors(responses), JSON.stringify(statuses(responses))).toBe(0);
    await expectInvariants();
    await expectBalancesRecomputed();
  });
});

describe('one valuation per account and date (item 2)', () => {
  it('lets one of ten concurrent moves onto a date win and refuses the others with 422', async () => {
    const account = await openAccount();
    const valuations = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createValuation(account, `2024-02-${String(i + 1).padStart(2, '0')}`, i)),
    );
    const moves = await Promise.all(
      valuations.map((created) =>
        call('updateValuation', {
          params: { id: created.body.data.id },
          body: { valuation: { date: '2024-03-01', amount: 5 } } as never,
        }),
      ),
    );
    expect(statuses(moves)).toEqual({ 200: 1, 422: 9 });
    await expectInvariants();
  });

  it('keeps one valuation when moves race creates for the same date', async () => {
    const account = await openAccount();
    const valuations = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createValuation(account, `2024-04-${String(i + 1).padStart(2, '0')}`, i)),
    );
    const responses = await Promise.all([
      ...valuations.map((created) =>
        call('updateValuation', {
          params: { id: created.body.data.id },
          body: { valuation: { date: '2024-05-01', amount: 7 } } as never,
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) => createValuation(account, '2024-05-01', 100 + i)),
    ]);
    expect(serverErrors(responses), JSON.stringify(statuses(responses))).toBe(0);
    expect(responses.every(({ status }) => [200, 201, 422].includes(status))).toBe(true);
    await expectInvariants();
    await expectBalancesRecomputed();
  });
});

describe('update and delete of one transaction at once (item 3)', () => {
  it('answers each request 200 or 404 and leaves no tagging behind', async () => {
    const account = await openAccount();
    const tags = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => {
        const response = await call('createTag', { body: { tag: { name: `Tag ${name} ${Math.random()}` } } as never });
        return response.body.data.id as string;
      }),
    );
    const responses = [];
    for (let round = 0; round < 10; round++) {
      const created = await createTransaction(account, round + 1);
      const id = created.body.data.id as string;
      responses.push(
        ...(await Promise.all([
          ...Array.from({ length: 10 }, (_, i) =>
            updateTransaction(id, { tag_ids: tags.slice(i % 3), notes: `n${i}` }),
          ),
          ...Array.from({ length: 3 }, () => call('deleteTransaction', { params: { id } })),
        ])),
      );
    }
    expect(serverErrors(responses), JSON.stringify(statuses(responses))).toBe(0);
    expect(responses.every(({ status }) => status === 200 || status === 404)).toBe(true);
    await expectInvariants();
    await expectBalancesRecomputed();
  });

  it('applies ten identical tag updates at once', async () => {
    const account = await openAccount();
    const tag = await call('createTag', { body: { tag: { name: `Same ${Math.random()}` } } as never });
    const created = await createTransaction(account, 3);
    const id = created.body.data.id as string;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => updateTransaction(id, { tag_ids: [tag.body.data.id] })),
    );
    expect(statuses(responses)).toEqual({ 200: 20 });
    const shown = await call('getTransaction', { params: { id } });
    expect(shown.body.data.tags.map((t: { id: string }) => t.id)).toEqual([tag.body.data.id]);
    await expectInvariants();
  });
});

describe('create-or-reuse and unique names under concurrency (items 4 and 12)', () => {
  it('creates one security for the first trades of a new ticker at once', async () => {
    const account = await openAccount('investment');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('createTrade', {
          body: {
            trade: { account_id: account, date: '2024-06-03', type: 'buy', qty: i + 1, price: 10, ticker: 'NEWT' },
          } as never,
        }),
      ),
    );
    expect(statuses(responses)).toEqual({ 201: 20 });
    expect(new Set(responses.map((response) => response.body.data.security.id)).size).toBe(1);
    const securities = await server.query("select id from securities where upper(ticker) = 'NEWT'");
    expect(securities).toHaveLength(1);
    await expectInvariants();
  });

  it('buys and sells one security concurrently without a 5xx or a negative position', async () => {
    const account = await openAccount('investment');
    const trade = (type: 'buy' | 'sell', qty: number, date: string) =>
      call('createTrade', {
        body: { trade: { account_id: account, date, type, qty, price: 5, ticker: 'MIXD' } } as never,
      });
    await trade('buy', 10, '2024-06-01');
    const responses = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => trade('buy', 1, `2024-06-0${2 + (i % 5)}`)),
      ...Array.from({ length: 15 }, (_, i) => trade('sell', 2, `2024-06-0${2 + (i % 5)}`)),
    ]);
    expect(serverErrors(responses), JSON.stringify(statuses(responses))).toBe(0);
    expect(responses.every(({ status }) => status === 201 || status === 422)).toBe(true);
    await expectInvariants();
    await expectBalancesRecomputed();
    const holdings = await server.query<{ qty: string }>('select qty::text from holdings where account_id = $1', [
      account,
    ]);
    expect(holdings.length).toBeGreaterThan(0);
    expect(holdings.every((row) => Number(row.qty) >= 0)).toBe(true);
  });

  it('creates one account of a name when twenty requests ask for it, in any case', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('createAccount', {
          body: { account: { name: i % 2 ? 'Checking A' : 'checking a', account_type: 'depository' } } as never,
        }),
      ),
    );
    expect(statuses(responses)).toEqual({ 201: 1, 422: 19 });
    const refused = responses.find(({ status }) => status === 422)!;
    expect(refused.body.errors).toEqual([{ path: '/body/account/name', message: 'name has already been taken' }]);
  });
});

describe('the last line of defence (item 1)', () => {
  it('runs a write again when PostgreSQL aborts it as a deadlock, and stores it once', async () => {
    const account = await openAccount();
    // The database aborts the first insert of an entry with SQLSTATE 40P01, as a deadlock victim;
    // a sequence counts the attempts because it is not rolled back with them.
    await server.query('create sequence deadlock_attempts');
    await server.query(`
      create function deadlock_once() returns trigger language plpgsql as $$
      begin
        if nextval('deadlock_attempts') = 1 then
          raise exception 'deadlock detected (test)' using errcode = '40P01';
        end if;
        return new;
      end $$`);
    await server.query('create trigger deadlock_once before insert on entries for each row execute function deadlock_once()'); // prettier-ignore
    try {
      const created = await createTransaction(account, 42);
      expect(created.status).toBe(201);
      const [attempts] = await server.query<{ last_value: string }>('select last_value from deadlock_attempts');
      expect(Number(attempts!.last_value)).toBe(2);
      const rows = await server.query('select 1 from entries where account_id = $1', [account]);
      expect(rows).toHaveLength(1);
    } finally {
      await server.query('drop trigger deadlock_once on entries');
      await server.query('drop function deadlock_once()');
      await server.query('drop sequence deadlock_attempts');
    }
  });
});
