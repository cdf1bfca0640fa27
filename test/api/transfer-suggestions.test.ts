import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runStatement } from '../../server/core/sql.ts';
import { transactionInsertStatement } from '../../server/transactions/transaction.bulk-insert.ts';
import { suggestTransfers } from '../../server/transfers/transfer-suggest.task.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createTransaction } from '../support/transactions-fixtures.ts';
import { until } from '../support/worker-process.ts';

/**
 * The suggestion job looks only at what changed since its last run for the family
 * (docs/api-decisions.md#transfer-suggestions). Each test has a household of its own, so the
 * counts of what a run examined are exact. Runs are the task's own function on a connection of the
 * test's, or the real worker (drainJobs).
 */
let server: TestServer;
let client: pg.Client;

beforeAll(async () => {
  server = await startTestServer();
  client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await server?.close();
});

interface Household extends TestHousehold {
  accounts: Record<'checking' | 'savings' | 'euro', string>;
}

async function household(): Promise<Household> {
  const family = await createHousehold(server);
  const account = async (name: string, currency = 'USD') => {
    const response = await server.api.call('createAccount', {
      key: family.writeKey,
      body: { account: { name, account_type: 'depository', balance: 0, currency } },
    });
    expect(response.status).toBe(201);
    return response.body.data.id as string;
  };
  return {
    ...family,
    accounts: {
      checking: await account('Checking'),
      savings: await account('Savings'),
      euro: await account('Euro', 'EUR'),
    },
  };
}

/** A transaction through the API: `amount` above zero is money out, below zero money in. */
async function write(of: Household, account_id: string, date: string, amount: number, currency?: string) {
  return (await createTransaction(server, of.writeKey, { account_id, date, amount, name: 'Move', currency })).id;
}

const run = (of: Household, on: pg.Client = client) => suggestTransfers(on, of.familyId);

/** The family's suggestions as [outflow, inflow] entry ids, sorted. */
async function suggested(of: Household): Promise<string[][]> {
  const rows = await server.query<{ outflow_entry_id: string; inflow_entry_id: string }>(
    `select outflow_entry_id, inflow_entry_id from transfers where family_id = $1 and status = 'suggested'
      order by outflow_entry_id, inflow_entry_id`,
    [of.familyId],
  );
  return rows.map((row) => [row.outflow_entry_id, row.inflow_entry_id]);
}

describe('what a run examines', () => {
  it('examines nothing when the family is untouched, even while another family writes', async () => {
    const family = await household();
    const other = await household();
    await write(family, family.accounts.checking, '2024-01-10', 40);
    await write(family, family.accounts.savings, '2024-01-10', -40);
    expect(await run(family)).toEqual({ examined: 2, suggested: 1 });
    expect(await run(family)).toEqual({ examined: 0, suggested: 0 });
    await write(other, other.accounts.checking, '2024-01-10', 40);
    expect(await run(family)).toEqual({ examined: 0, suggested: 0 });
    expect(await run(other)).toEqual({ examined: 1, suggested: 0 });
  });

  it('pairs a transaction written after a run with one the run already saw (the real worker)', async () => {
    const family = await household();
    const out = await write(family, family.accounts.checking, '2024-02-01', 125);
    await write(family, family.accounts.savings, '2024-02-01', -7.5);
    await server.drainJobs();
    expect(await suggested(family)).toEqual([]);
    const into = await write(family, family.accounts.savings, '2024-02-03', -125);
    await server.drainJobs();
    expect(await suggested(family)).toEqual([[out, into]]);
    // The worker's runs moved the mark: only an edit makes a transaction fresh again.
    expect(await run(family)).toEqual({ examined: 0, suggested: 0 });
    const edited = await server.api.call('updateTransaction', {
      key: family.writeKey,
      params: { id: out },
      body: { transaction: { notes: 'edited' } },
    });
    expect(edited.status).toBe(200);
    expect(await run(family)).toEqual({ examined: 1, suggested: 0 });
  });

  it('suggests a pair whose side was written by a transaction that committed after a run started', async () => {
    const family = await household();
    const out = await write(family, family.accounts.checking, '2024-03-01', 300);
    expect(await run(family)).toEqual({ examined: 1, suggested: 0 });
    // A long transaction (an import writes in one) holds its inflow while a run looks.
    const writer = new pg.Client({ connectionString: server.databaseUrl });
    await writer.connect();
    try {
      await writer.query('begin');
      const { statement, ids } = transactionInsertStatement([
        {
          familyId: family.familyId,
          accountId: family.accounts.savings,
          date: '2024-03-02',
          amount: '-300',
          currency: 'USD',
          name: 'Held',
        },
      ]);
      await runStatement(writer, statement);
      // A write that starts later but commits first: the run sees it, and not the held inflow,
      // whose transaction id is below this one's.
      await write(family, family.accounts.checking, '2024-03-04', 4.5);
      expect(await run(family)).toEqual({ examined: 1, suggested: 0 });
      await writer.query('commit');
      await write(family, family.accounts.checking, '2024-03-05', 9.99);
      // The held inflow, the write after it, and the one that committed first once more: the
      // last run's mark could not pass the transaction still running.
      expect(await run(family)).toEqual({ examined: 3, suggested: 1 });
      expect(await suggested(family)).toEqual([[out, ids[0]]]);
    } finally {
      await writer.end();
    }
  });

  it('a transaction of another database, open or ending while a run looks, does not hold the mark back', async () => {
    // The cluster's maintenance database: a transaction there cannot write this database's entries.
    const elsewhere = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    const blocker = new pg.Client({ connectionString: server.databaseUrl });
    await Promise.all([elsewhere.connect(), blocker.connect()]);
    try {
      const family = await household();
      // Open before the writes: its transaction id is below theirs.
      await elsewhere.query('begin');
      await elsewhere.query('select pg_current_xact_id()');
      const out = await write(family, family.accounts.checking, '2024-01-20', 70);
      const into = await write(family, family.accounts.savings, '2024-01-20', -70);
      expect(await run(family)).toEqual({ examined: 2, suggested: 1 });
      expect(await run(family)).toEqual({ examined: 0, suggested: 0 });

      // Ends while a run is under way: the run, after its snapshot, waits for an uncommitted
      // suggestion of the same pair; the other database's transaction commits meanwhile.
      await server.query(`delete from transfers where family_id = $1`, [family.familyId]);
      await elsewhere.query('commit');
      await elsewhere.query('begin');
      await elsewhere.query('select pg_current_xact_id()');
      await write(family, family.accounts.checking, '2024-01-20', 5);
      await blocker.query('begin');
      await blocker.query(
        `insert into transfers (id, family_id, outflow_entry_id, inflow_entry_id, status)
         values (gen_random_uuid(), $1, $2, $3, 'suggested')`,
        [family.familyId, out, into],
      );
      const looking = run(family);
      await until(
        async () => {
          const [waiting] = await server.query<{ count: number }>(
            `select count(*)::int as count from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query like '%transfer_suggest_marks%'`,
          );
          return waiting!.count === 1;
        },
        10_000,
        'the run to wait for the uncommitted suggestion',
      );
      await elsewhere.query('commit');
      await blocker.query('rollback');
      // The deletion freed both sides; the blocker's own transaction came after every write.
      expect(await looking).toEqual({ examined: 3, suggested: 1 });
      expect(await run(family)).toEqual({ examined: 0, suggested: 0 });
    } finally {
      await Promise.all([elsewhere.end(), blocker.end()]);
    }
  });

  it('examines the outflows a new exchange rate can convert: an old cross-currency pair is suggested', async () => {
    const family = await household();
    const out = await write(family, family.accounts.checking, '2024-04-08', 100);
    const into = await write(family, family.accounts.euro, '2024-04-09', -92.6, 'EUR');
    await write(family, family.accounts.checking, '2024-06-01', 100); // beyond the rate's 14 days
    expect(await run(family)).toMatchObject({ suggested: 0 });
    const rate = await server.api.call('createExchangeRates', {
      key: family.writeKey,
      body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: '2024-04-01', rate: 1.08 }] },
    });
    expect(rate.status).toBe(200);
    // 100 USD at 1 / 1.08 is 92.59 EUR, within 1% of 92.60; only the outflow dated 04-01 to 04-15.
    expect(await run(family)).toEqual({ examined: 1, suggested: 1 });
    expect(await suggested(family)).toEqual([[out, into]]);
  });
});

describe('transactions a deleted transfer frees', () => {
  it('pair again with their next best match: after a rejection and after a side is deleted', async () => {
    const family = await household();
    const out = await write(family, family.accounts.checking, '2024-05-10', 200);
    const closest = await write(family, family.accounts.savings, '2024-05-10', -200);
    const next = await write(family, family.accounts.savings, '2024-05-11', -200);
    const last = await write(family, family.accounts.savings, '2024-05-12', -199);
    expect(await run(family)).toEqual({ examined: 4, suggested: 1 });
    expect(await suggested(family)).toEqual([[out, closest]]);

    const [transfer] = await server.query<{ id: string }>(`select id from transfers where outflow_entry_id = $1`, [
      out,
    ]);
    const rejected = await server.api.call('rejectTransfer', { key: family.writeKey, params: { id: transfer!.id } });
    expect(rejected.status).toBe(200);
    expect(await run(family)).toEqual({ examined: 2, suggested: 1 });
    expect(await suggested(family)).toEqual([[out, next]]);

    const deleted = await server.api.call('deleteTransaction', { key: family.writeKey, params: { id: next } });
    expect(deleted.status).toBe(200);
    expect(await run(family)).toEqual({ examined: 1, suggested: 1 });
    expect(await suggested(family)).toEqual([[out, last]]);
  });

  it('an overtaken suggestion frees its other side in the same run', async () => {
    const family = await household();
    const out = await write(family, family.accounts.checking, '2024-06-10', 50);
    const later = await write(family, family.accounts.checking, '2024-06-12', 50);
    const into = await write(family, family.accounts.savings, '2024-06-10', -50);
    expect(await run(family)).toEqual({ examined: 3, suggested: 1 });
    expect(await suggested(family)).toEqual([[out, into]]);
    const by = await write(family, family.accounts.savings, '2024-06-10', -50);
    const link = await server.api.call('createTransfer', {
      key: family.writeKey,
      body: { transfer: { outflow_transaction_id: out, inflow_transaction_id: by } },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    // The new inflow and both sides of the overtaken suggestion (two of the three in a transfer now).
    expect(await run(family)).toEqual({ examined: 3, suggested: 1 });
    expect(await suggested(family)).toEqual([[later, into]]);
  });
});

/** A small deterministic generator, so a failure can be run again. */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('the same suggestions as looking at everything', () => {
  it('after each incremental run, a run over every transaction finds nothing more', async () => {
    const family = await household();
    await server.api.call('createExchangeRates', {
      key: family.writeKey,
      body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: '2024-07-01', rate: 1.1 }] },
    });
    const random = generator(27);
    const accounts = [family.accounts.checking, family.accounts.savings, family.accounts.euro];
    for (let round = 0; round < 6; round++) {
      const items = Array.from({ length: 25 }, () => {
        const account = Math.floor(random() * 3);
        const sign = random() < 0.5 ? -1 : 1;
        // Few amounts and days, so that many pairs compete for the same transaction.
        const amount = sign * [100, 101, 110, 99.5][Math.floor(random() * 4)]!;
        return {
          familyId: family.familyId,
          accountId: accounts[account]!,
          date: `2024-07-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}`,
          amount: amount.toFixed(2),
          currency: account === 2 ? 'EUR' : 'USD',
          name: `Round ${round}`,
        };
      });
      await runStatement(client, transactionInsertStatement(items).statement);
      // Some suggestions rejected and some transactions deleted, freeing their other sides.
      const taken = await server.query<{ id: string; outflow_entry_id: string }>(
        `select id, outflow_entry_id from transfers where family_id = $1 order by id`,
        [family.familyId],
      );
      for (const [index, transfer] of taken.entries()) {
        if (index % 3 === 0) {
          await server.api.call('rejectTransfer', { key: family.writeKey, params: { id: transfer.id } });
        } else if (index % 3 === 1) {
          await server.api.call('deleteTransaction', {
            key: family.writeKey,
            params: { id: transfer.outflow_entry_id },
          });
        }
      }
      const incremental = await run(family);
      expect(incremental.examined).toBeLessThan(25 + 2 * taken.length + 1);
      const before = await suggested(family);
      await server.query(`delete from transfer_suggest_marks where family_id = $1`, [family.familyId]);
      expect(await run(family)).toMatchObject({ suggested: 0 });
      expect(await suggested(family)).toEqual(before);
    }
    expect((await suggested(family)).length).toBeGreaterThan(5);
  });
});

describe('concurrent runs', () => {
  it('24 runs of one family at once: no error, each pair once, the first run does the work', async () => {
    const family = await household();
    const items = Array.from({ length: 20 }, (_, n) => [
      { accountId: family.accounts.checking, amount: `${100 + n * 10}.00` },
      { accountId: family.accounts.savings, amount: `-${100 + n * 10}.00` },
    ]).flat();
    const { statement } = transactionInsertStatement(
      items.map((item) => ({ ...item, familyId: family.familyId, date: '2024-08-01', currency: 'USD', name: 'Pair' })),
    );
    await runStatement(client, statement);
    const clients = await Promise.all(
      Array.from({ length: 24 }, async () => {
        const each = new pg.Client({ connectionString: server.databaseUrl });
        await each.connect();
        return each;
      }),
    );
    try {
      const runs = await Promise.all(clients.map((each) => run(family, each)));
      expect(runs.map((each) => each.suggested).sort((a, b) => b - a)).toEqual([20, ...Array(23).fill(0)]);
      expect(runs.filter((each) => each.examined > 0)).toEqual([{ examined: 40, suggested: 20 }]);
    } finally {
      await Promise.all(clients.map((each) => each.end()));
    }
    const [counts] = await server.query<{ pairs: number; outflows: number; inflows: number }>(
      `select count(*)::int as pairs, count(distinct outflow_entry_id)::int as outflows,
              count(distinct inflow_entry_id)::int as inflows
         from transfers where family_id = $1`,
      [family.familyId],
    );
    expect(counts).toEqual({ pairs: 20, outflows: 20, inflows: 20 });
  });
});
