import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// ExchangeRateImport (issue 26): the ECB's daily and historical reference-rate files and plain
// date,from,to,rate rows, with hand-checked rates; replacing, reverting (a replaced rate comes
// back), invalid rows, family scope, and the syncs of the accounts the rates move.
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/exchange-rates/${name}`, import.meta.url), 'utf8');

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
  other = await createHousehold(server);
});
afterAll(() => server?.close());

const show = (id: string) => server.api.call('getImport', { key: household.readKey, params: { id } });

/** Creates an import and lets its CSV be read: the import as it is then. */
async function create(content: string) {
  const created = await server.api.call('createImport', {
    key: household.writeKey,
    body: { type: 'ExchangeRateImport', raw_file_content: content },
  });
  expect(created.status).toBe(201);
  await server.drainJobs();
  return (await show(created.body.data.id)).body.data as {
    id: string;
    error: string | null;
    stats: Record<string, number>;
  };
}

/** Creates, publishes and runs an import; returns it as shown afterwards. */
async function runImport(content: string) {
  const { id } = await create(content);
  expect((await show(id)).body.data).toMatchObject({ error: null, stats: { invalid_rows_count: 0 } });
  expect((await server.api.call('publishImport', { key: household.writeKey, params: { id } })).status).toBe(202);
  await server.drainJobs();
  const done = (await show(id)).body.data;
  expect(done, JSON.stringify(done)).toMatchObject({ status: 'complete', error: null });
  return done as { id: string; stats: { rows_count: number; imported_count: number } };
}

async function revert(id: string) {
  expect((await server.api.call('revertImport', { key: household.writeKey, params: { id } })).status).toBe(202);
  await server.drainJobs();
  expect((await show(id)).body.data).toMatchObject({ status: 'pending', stats: { imported_count: 0 } });
}

/** The family's rates as `date from>to rate source`, oldest first. */
async function rates(familyId = household.familyId): Promise<string[]> {
  const rows = await server.query<{ line: string }>(
    `select date::text || ' ' || from_currency || '>' || to_currency || ' ' || trim_scale(rate)::text || ' ' || source as line
       from exchange_rates where family_id = $1 order by date, from_currency, to_currency`,
    [familyId],
  );
  return rows.map((row) => row.line);
}

const clear = () => server.query('delete from exchange_rates where family_id = $1', [household.familyId]);

describe('ExchangeRateImport', () => {
  it('reads the ECB daily file as published: rates per 1 EUR, N/A skipped', async () => {
    await clear();
    const done = await runImport(fixture('ecb-daily.csv'));
    expect(done.stats).toMatchObject({ rows_count: 1, imported_count: 4 });
    expect(await rates()).toEqual([
      '2026-11-27 EUR>CHF 0.93 ecb',
      '2026-11-27 EUR>GBP 0.8612 ecb',
      '2026-11-27 EUR>JPY 160.25 ecb',
      '2026-11-27 EUR>USD 1.05 ecb',
    ]);
    const listed = await server.api.call('listExchangeRates', { key: household.readKey, query: { to: 'GBP' } });
    expect(listed.body.data).toMatchObject([
      { from: 'EUR', to: 'GBP', date: '2026-11-27', rate: '0.8612', source: 'ecb' },
    ]);
    await revert(done.id);
    expect(await rates()).toEqual([]);
  });

  it('reads the ECB historical file: ISO dates, withdrawn currencies not read', async () => {
    await clear();
    const done = await runImport(fixture('ecb-historical.csv'));
    // 4 + 3 + 4 rates: N/A cells and the CYP column carry none.
    expect(done.stats).toMatchObject({ rows_count: 3, imported_count: 11 });
    expect(await rates()).toEqual([
      '1999-01-04 EUR>CHF 1.6168 ecb',
      '1999-01-04 EUR>GBP 0.7111 ecb',
      '1999-01-04 EUR>JPY 133.73 ecb',
      '1999-01-04 EUR>USD 1.1789 ecb',
      '2026-11-25 EUR>CHF 0.932 ecb',
      '2026-11-25 EUR>GBP 0.859 ecb',
      '2026-11-25 EUR>USD 1.045 ecb',
      '2026-11-26 EUR>CHF 0.931 ecb',
      '2026-11-26 EUR>GBP 0.86 ecb',
      '2026-11-26 EUR>JPY 159.9 ecb',
      '2026-11-26 EUR>USD 1.048 ecb',
    ]);
    const rows = await server.api.call('listImportRows', { key: household.readKey, params: { id: done.id } });
    expect(rows.body.data[2]).toMatchObject({
      row_number: 3,
      valid: true,
      fields: { date: '1999-01-04', USD: '1.1789', JPY: '133.73', GBP: '0.71110', CHF: '1.6168' },
    });
    await revert(done.id);
  });

  it('reads plain date,from,to,rate rows', async () => {
    await clear();
    const done = await runImport(fixture('rates.csv'));
    expect(done.stats).toMatchObject({ rows_count: 3, imported_count: 3 });
    expect(await rates()).toEqual([
      '2026-11-20 GBP>USD 1.265 csv',
      '2026-11-20 USD>CAD 1.3912 csv',
      '2026-11-21 USD>CAD 1.395 csv',
    ]);
    await revert(done.id);
  });

  it('replaces a rate of the family, and its revert puts the replaced rate back', async () => {
    await clear();
    await server.api.call('createExchangeRates', {
      key: household.writeKey,
      body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: '2026-11-27', rate: '1.04' }] },
    });
    // Another family's rate of the same pair and date is its own: neither replaced nor reverted.
    await server.api.call('createExchangeRates', {
      key: other.writeKey,
      body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: '2026-11-27', rate: '2' }] },
    });
    const done = await runImport(fixture('ecb-daily.csv'));
    expect(done.stats.imported_count).toBe(4);
    expect(await rates()).toContain('2026-11-27 EUR>USD 1.05 ecb');
    await revert(done.id);
    expect(await rates()).toEqual(['2026-11-27 EUR>USD 1.04 api']);
    expect(await rates(other.familyId)).toEqual(['2026-11-27 EUR>USD 2 api']);
  });

  it('reverts imports that replaced each other in any order, back to what was there before', async () => {
    await clear();
    const later = 'date,from,to,rate\n2026-11-20,USD,CAD,1.40\n';
    // Undone newest first: each revert restores the value before it.
    const first = await runImport(fixture('rates.csv'));
    const second = await runImport(later);
    expect(await rates()).toContain('2026-11-20 USD>CAD 1.4 csv');
    await revert(second.id);
    expect(await rates()).toContain('2026-11-20 USD>CAD 1.3912 csv');
    await revert(first.id);
    expect(await rates()).toEqual([]);

    // Undone oldest first: the later import's value stays until it is reverted too, then nothing is left.
    const third = await runImport(fixture('rates.csv'));
    const fourth = await runImport(later);
    await revert(third.id);
    expect(await rates()).toEqual(['2026-11-20 USD>CAD 1.4 csv']);
    await revert(fourth.id);
    expect(await rates()).toEqual([]);

    // A rate set by hand after the import is no longer the import's: its revert leaves it.
    const fifth = await runImport(later);
    await server.api.call('createExchangeRates', {
      key: household.writeKey,
      body: { exchange_rates: [{ from: 'USD', to: 'CAD', date: '2026-11-20', rate: '1.41' }] },
    });
    await revert(fifth.id);
    expect(await rates()).toEqual(['2026-11-20 USD>CAD 1.41 api']);
  });

  it('keeps rows with bad values invalid, naming the column, and a header it cannot read unpublishable', async () => {
    const plain = await create(
      'date,from,to,rate\n2026-11-20,USD,USD,1\n2026-11-20,USD,XXX,1\n2026-11-20,USD,CAD,0\n2026-11-32,USD,CAD,1\n2026-11-20,USD,CAD,1.0000000000001\n2026-11-20,USD,CAD,2\n',
    );
    expect((await show(plain.id)).body.data.stats).toMatchObject({
      rows_count: 6,
      valid_rows_count: 1,
      invalid_rows_count: 5,
    });
    const rows = await server.api.call('listImportRows', { key: household.readKey, params: { id: plain.id } });
    expect(rows.body.data.map((row: { errors: unknown[] }) => row.errors)).toEqual([
      [{ column: 'to', message: 'from and to must be different currencies' }],
      [{ column: 'to', message: "to 'XXX' is not an ISO 4217 code" }],
      [{ column: 'rate', message: 'rate must be greater than 0' }],
      [{ column: 'date', message: "date '2026-11-32' is not a date in the format %Y-%m-%d or %d %B %Y" }],
      [{ column: 'rate', message: 'rate must have at most 12 decimal places' }],
      [],
    ]);
    const published = await server.api.call('publishImport', { key: household.writeKey, params: { id: plain.id } });
    expect(published.status).toBe(422);

    const ecb = await create('Date, USD, JPY, \n27 November 2026, abc, 160.25, \n');
    const ecbRows = await server.api.call('listImportRows', { key: household.readKey, params: { id: ecb.id } });
    expect(ecbRows.body.data[0].errors).toEqual([
      { column: 'USD', message: "USD 'abc' is not a number in the format 1,234.56" },
    ]);

    const strange = await create('Date,USD,Notes\n2026-11-20,1.1,hello\n');
    expect(strange.error).toMatch(/not codes: 'NOTES'/);
    const half = await create('date,from,rate\n2026-11-20,USD,1.1\n');
    expect(half.error).toBe("the header has no column 'to'");
  });

  it('marks and queues the accounts the imported rates move, and again on revert', async () => {
    await clear();
    const created = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Travel', account_type: 'depository', currency: 'USD' } },
    });
    const account = created.body.data.id as string;
    await server.api.call('createTransaction', {
      key: household.writeKey,
      body: { transaction: { account_id: account, date: '2026-11-26', amount: 30, name: 'Taxi', currency: 'CHF' } },
    });
    await server.drainJobs();
    // The jobs run here one after another, and the sync (rewritten elsewhere) may clear the mark:
    // a log taken when a sync is queued shows what the import's transaction marked and queued.
    await server.query('create table queued_syncs (account_id uuid, stale date)');
    await server.query(`create function log_queued_sync() returns trigger language plpgsql as $$
      begin
        insert into queued_syncs select a.id, a.balances_stale_from from accounts a
         where a.id = substring(new.key from length('account_sync:') + 1)::uuid;
        return null;
      end $$`);
    await server.query(`create trigger log_queued_sync after insert on graphile_worker._private_jobs
      for each row when (new.key like 'account_sync:%') execute function log_queued_sync()`);
    const queued = async () => {
      const rows = await server.query<{ stale: string | null }>(
        'delete from queued_syncs where account_id = $1 returning stale::text',
        [account],
      );
      return rows.map((row) => row.stale);
    };
    const { id } = await create(fixture('ecb-historical.csv'));
    await server.query('update accounts set balances_stale_from = null');
    await server.api.call('publishImport', { key: household.writeKey, params: { id } });
    await server.drainJobs();
    expect((await show(id)).body.data.status).toBe('complete');
    // Marked from the earliest CHF rate, of 1999.
    expect(await queued()).toEqual(['1999-01-04']);

    await server.query('update accounts set balances_stale_from = null');
    await server.api.call('revertImport', { key: household.writeKey, params: { id } });
    await server.drainJobs();
    expect((await show(id)).body.data.status).toBe('pending');
    expect(await queued()).toEqual(['1999-01-04']);
  });
});
