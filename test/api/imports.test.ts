import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockAccount } from '../../server/accounts/account-lock.ts';
import { CSV_CONTENT_LIMIT } from '../../server/config.ts';
import { sql } from '../../server/core/sql.ts';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let checking: string;
let savings: string;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server, { currency: 'EUR' });
  other = await createHousehold(server);
  const account = async (name: string, currency = 'EUR') =>
    (
      await server.api.call('createAccount', {
        key: household.writeKey,
        body: { account: { name, account_type: 'depository', currency } },
      })
    ).body.data.id as string;
  checking = await account('Girokonto');
  savings = await account('Savings', 'USD');
  await server.drainJobs();
});
afterAll(() => server?.close());

const create = (body: Record<string, unknown>, key = household.writeKey) =>
  server.api.call('createImport', { key, body });
const show = (id: string, key = household.readKey) => server.api.call('getImport', { key, params: { id } });
/** Creates an import and lets its CSV be read (and, with `publish`, written): the import as it is then. */
async function createRead(body: Record<string, unknown>) {
  const created = await create(body);
  expect(created.status).toBe(201);
  await server.drainJobs();
  return (await show(created.body.data.id)).body.data;
}
const rows = (id: string, query: Record<string, string | number | undefined> = {}) =>
  server.api.call('listImportRows', { key: household.readKey, params: { id }, query });
const publish = (id: string) => server.api.call('publishImport', { key: household.writeKey, params: { id } });
const revert = (id: string) => server.api.call('revertImport', { key: household.writeKey, params: { id } });

/** The import's entries with what the API shows of them, oldest row first. */
async function importedEntries(importId: string) {
  return server.query<{ name: string; amount: string; currency: string; date: string; account_id: string }>(
    `select name, amount::text, currency, to_char(date, 'YYYY-MM-DD') as date, account_id from entries
     where import_id = $1 order by date, name`,
    [importId],
  );
}

const GERMAN_BANK = [
  'Buchungstag;Betrag;Verwendungszweck;Kategorie;Tags;Notiz',
  '01.03.2024;-45,20;Wocheneinkauf;Lebensmittel;Haushalt|Wöchentlich;"Markt, Ecke Hauptstraße"',
  '02.03.2024;3.200,00;Gehalt ACME;Einkommen;;',
  '"03.03.2024";"-1.234,56";"Miete ""März""";Wohnen;Haushalt;"zwei',
  'Zeilen"',
].join('\r\n');

const GERMAN_CONFIG = {
  date_col_label: 'Buchungstag',
  amount_col_label: 'Betrag',
  name_col_label: 'Verwendungszweck',
  category_col_label: 'Kategorie',
  tags_col_label: 'Tags',
  notes_col_label: 'Notiz',
  date_format: '%d.%m.%Y',
  number_format: '1.234,56',
  col_sep: ';',
};

describe('a TransactionImport from creation to revert', () => {
  let id: string;

  it('creates a staging import whose rows a job reads, then it is pending', async () => {
    const response = await create({ raw_file_content: `\uFEFF${GERMAN_BANK}`, account_id: checking, ...GERMAN_CONFIG });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      type: 'TransactionImport',
      status: 'staging',
      account_id: checking,
      rows_count: 0,
      error: null,
      queue_position: 1,
    });
    id = response.body.data.id;
    expect((await rows(id)).body.meta.total_count).toBe(0);
    await server.drainJobs();
    const detail = (await show(id)).body.data;
    expect(detail).toMatchObject({ status: 'pending', rows_count: 3, error: null, queue_position: null });
    expect(detail.stats).toEqual({ rows_count: 3, valid_rows_count: 3, invalid_rows_count: 0, imported_count: 0 });
    expect(detail.configuration).toMatchObject({ ...GERMAN_CONFIG, signage_convention: null, ticker_col_label: null });
    const page = (await rows(id)).body;
    expect(page.meta.total_count).toBe(3);
    expect(page.data[2]).toEqual({
      row_number: 3,
      line: 4,
      valid: true,
      errors: [],
      fields: {
        date: '03.03.2024',
        amount: '-1.234,56',
        name: 'Miete "März"',
        category: 'Wohnen',
        tags: 'Haushalt',
        notes: 'zwei\r\nZeilen',
      },
    });
  });

  it('publishes: importing at once, then complete with every row written in one go', async () => {
    const before = await server.query('select count(*)::int as n from entries');
    const response = await publish(id);
    expect(response.status).toBe(202);
    expect(response.body.data.status).toBe('importing');
    await server.drainJobs();
    const detail = (await show(id)).body.data;
    expect(detail.status).toBe('complete');
    expect(detail.stats.imported_count).toBe(3);
    // inflows_positive (the default): a positive CSV amount is money in, stored negative.
    expect(await importedEntries(id)).toEqual([
      { name: 'Wocheneinkauf', amount: '45.2000', currency: 'EUR', date: '2024-03-01', account_id: checking },
      { name: 'Gehalt ACME', amount: '-3200.0000', currency: 'EUR', date: '2024-03-02', account_id: checking },
      { name: 'Miete "März"', amount: '1234.5600', currency: 'EUR', date: '2024-03-03', account_id: checking },
    ]);
    const after = await server.query<{ n: number }>('select count(*)::int as n from entries');
    expect(after[0]!.n - (before[0] as { n: number }).n).toBe(3);
    const listed = await server.api.call('listTransactions', {
      key: household.readKey,
      query: { account_id: checking, per_page: 10 },
    });
    const byName = Object.fromEntries(listed.body.data.map((t: { name: string }) => [t.name, t]));
    expect(byName['Gehalt ACME']).toMatchObject({ classification: 'income', signed_amount_cents: 320000 });
    expect(byName['Wocheneinkauf']).toMatchObject({
      classification: 'expense',
      signed_amount_cents: -4520,
      category: { name: 'Lebensmittel' },
      notes: 'Markt, Ecke Hauptstraße',
    });
    expect(byName['Wocheneinkauf'].tags.map((tag: { name: string }) => tag.name).sort()).toEqual([
      'Haushalt',
      'Wöchentlich',
    ]);
    // The account's balance follows (one sync after the import): 0 - 45.20 + 3200 - 1234.56.
    const account = await server.api.call('getAccount', { key: household.readKey, params: { id: checking } });
    expect(account.body.data.balance_cents).toBe(192024);
  });

  it('cannot be published twice, nor changed once complete', async () => {
    expect((await publish(id)).status).toBe(422);
    const change = await server.api.call('updateImport', {
      key: household.writeKey,
      params: { id },
      body: { date_format: '%Y-%m-%d' },
    });
    expect(change.status).toBe(422);
    expect(change.body.message).toBe('Only a pending import can be changed (this one is complete)');
  });

  it('reverts exactly what it created, then is pending again', async () => {
    const response = await revert(id);
    expect(response.status).toBe(202);
    expect(response.body.data.status).toBe('reverting');
    await server.drainJobs();
    expect((await show(id)).body.data).toMatchObject({ status: 'pending', stats: { imported_count: 0 } });
    expect(await importedEntries(id)).toEqual([]);
    const created = await server.query(
      `select name from categories where family_id = $1 union all select name from tags where family_id = $1`,
      [household.familyId],
    );
    expect(created).toEqual([]);
    const account = await server.api.call('getAccount', { key: household.readKey, params: { id: checking } });
    expect(account.body.data.balance_cents).toBe(0);
    expect((await revert(id)).status).toBe(422);
  });
});

describe('every number format under both signage conventions', () => {
  // The same two movements written four ways: 1234.56 coming in, 0.5 going out (1,234 has no decimals).
  const formats = [
    { number_format: '1,234.56', cells: ['"1,234.56"', '-0.50'], values: ['1234.56', '0.50'] },
    { number_format: '1.234,56', cells: ['"1.234,56"', '"-0,50"'], values: ['1234.56', '0.50'] },
    { number_format: '1 234,56', cells: ['"1\u00a0234,56"', '"-0,50"'], values: ['1234.56', '0.50'] },
    { number_format: '1,234', cells: ['"1,234"', '-1'], values: ['1234', '1'] },
  ];
  it.each(
    formats.flatMap((format) => [
      { ...format, signage_convention: 'inflows_positive' },
      { ...format, signage_convention: 'inflows_negative' },
    ]),
  )('$number_format, $signage_convention', async ({ number_format, signage_convention, cells, values }) => {
    const csv = `date,amount,name\n2024-05-01,${cells[0]},In\n2024-05-02,${cells[1]},Out\n`;
    const created = await create({
      raw_file_content: csv,
      account_id: checking,
      number_format,
      signage_convention,
      publish: 'true',
    });
    expect(created.body.data.status).toBe('staging');
    await server.drainJobs();
    expect((await show(created.body.data.id)).body.data.status).toBe('complete');
    const amounts = (await importedEntries(created.body.data.id)).map((entry) => entry.amount);
    // Stored sign: positive is money out. inflows_positive turns the CSV's sign around; inflows_negative keeps it.
    const stored =
      signage_convention === 'inflows_positive' ? [`-${values[0]}`, values[1]] : [values[0], `-${values[1]}`];
    expect(amounts).toEqual(stored.map((value) => Number(value).toFixed(4)));
  });
});

describe('rows that cannot be read', () => {
  it('get errors naming line and column; publishing is refused until the configuration fits', async () => {
    const csv = ['date,amount,name', '2024-03-01,12.50,Lunch', '03/02/2024,abc,Dinner', '2024-02-30,1,Ghost'].join(
      '\n',
    );
    const created = await createRead({ raw_file_content: csv, account_id: checking });
    expect(created.stats).toMatchObject({ valid_rows_count: 1, invalid_rows_count: 2 });
    const invalid = (await rows(created.id, { valid: 'false' })).body.data;
    expect(invalid).toEqual([
      {
        row_number: 2,
        line: 3,
        valid: false,
        errors: [
          { column: 'date', message: "date '03/02/2024' is not a date in the format %Y-%m-%d" },
          { column: 'amount', message: "amount 'abc' is not a number in the format 1,234.56" },
        ],
        fields: { date: '03/02/2024', amount: 'abc', name: 'Dinner' },
      },
      {
        row_number: 3,
        line: 4,
        valid: false,
        errors: [{ column: 'date', message: "date '2024-02-30' is not a date in the format %Y-%m-%d" }],
        fields: { date: '2024-02-30', amount: '1', name: 'Ghost' },
      },
    ]);
    const refused = await publish(created.id);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe('The import has 2 invalid rows; fix the configuration or the CSV first');
    expect((await show(created.id)).body.data.status).toBe('pending');
  });

  it('reads a bank export whose rows end in an empty column; a cell outside the header is still an error', async () => {
    // Chase writes its header without the trailing comma its data rows carry; other banks put it on
    // both lines.
    const chase = [
      'Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #',
      'DEBIT,11/02/2026,COFFEE ROASTERS,-4.50,DEBIT_CARD,1995.50,,',
      'CREDIT,11/01/2026,PAYROLL ACME,2000.00,ACH_CREDIT,2000.00,,',
      'CHECK,10/30/2026,CHECK 1042,-25.00,CHECK_PAID,0.00,1042,',
    ].join('\n');
    const configuration = { date_col_label: 'Posting Date', name_col_label: 'Description', date_format: '%m/%d/%Y' };
    const read = await createRead({ raw_file_content: chase, account_id: checking, ...configuration });
    expect(read).toMatchObject({ error: null, stats: { rows_count: 3, valid_rows_count: 3, invalid_rows_count: 0 } });
    const both = `${chase.split('\n')[0]},\n${chase.split('\n').slice(1).join('\n')}`;
    expect((await createRead({ raw_file_content: both, account_id: checking, ...configuration })).stats).toMatchObject({
      valid_rows_count: 3,
      invalid_rows_count: 0,
    });

    const stray = await createRead({
      raw_file_content: 'date,amount,name\n2024-03-01,1,Lunch,oops\n2024-03-02,2\n',
      account_id: checking,
    });
    expect((await rows(stray.id)).body.data.map((row: { errors: unknown }) => row.errors)).toEqual([
      [{ message: 'row has 4 cells, the header 3' }],
      [{ message: 'row has 2 cells, the header 3' }],
    ]);
  });

  it('says what is wrong with the file as a whole: a missing column, a repeated one, no rows', async () => {
    const cases = [
      ['date;amount\n2024-01-01;1', "the header has no column 'date'"], // `,` separator expected
      ['date,amount,Amount\n2024-01-01,1,2', 'the header repeats the columns amount'],
      ['date,amount\n', 'the CSV has a header but no data rows'],
      // A quote never closed, after enough rows that they were already on their way to the database.
      [`date,amount\n${'2024-01-01,1\n'.repeat(5000)}2024-01-02,"2\n2024-01-03,3\n`, 'is never closed'],
    ];
    for (const [csv, message] of cases) {
      const detail = await createRead({ raw_file_content: csv!, account_id: checking });
      expect(detail).toMatchObject({ status: 'pending', rows_count: 0 });
      expect(detail.error).toContain(message);
      expect((await rows(detail.id)).body.meta.total_count).toBe(0);
      expect((await publish(detail.id)).body.message).toContain(message);
    }
  });

  it('refuses CSV text holding a NUL, which PostgreSQL cannot store, before reading it', async () => {
    const response = await create({
      raw_file_content: 'date,amount,name\n2024-01-01,1,a\u0000b\n',
      account_id: checking,
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { path: '/body/raw_file_content', message: 'raw_file_content must not contain NUL characters' },
    ]);
  });

  it('reads again with a changed configuration', async () => {
    const csv = 'Datum;Betrag\n01.02.2024;1.000,50\n';
    const created = await createRead({ raw_file_content: csv, account_id: checking });
    expect(created.error).toContain("the header has no column 'date'");
    const changed = await server.api.call('updateImport', {
      key: household.writeKey,
      params: { id: created.id },
      body: {
        col_sep: ';',
        date_col_label: 'Datum',
        amount_col_label: 'Betrag',
        date_format: '%d.%m.%Y',
        number_format: '1.234,56',
        signage_convention: 'inflows_negative',
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ status: 'staging', error: null, queue_position: 1 });
    expect(changed.body.data.stats).toMatchObject({ rows_count: 0, valid_rows_count: 0 });
    await server.drainJobs();
    expect((await show(created.id)).body.data).toMatchObject({
      status: 'pending',
      error: null,
      stats: { rows_count: 1, valid_rows_count: 1 },
    });
    expect((await publish(created.id)).status).toBe(202);
    await server.drainJobs();
    // inflows_negative: a positive CSV amount is money out, stored positive.
    expect((await importedEntries(created.id)).map((entry) => entry.amount)).toEqual(['1000.5000']);
  });
});

describe('published on create: written while it is read', () => {
  // More rows than one written range (10,000), so that ranges are written before the last row is read.
  const ROWS = 12_500;
  const bigCsv = (last: string) =>
    [
      'date,amount,name,category,tags',
      ...Array.from(
        { length: ROWS - 1 },
        (_, i) => `2023-05-${String((i % 28) + 1).padStart(2, '0')},-${i + 1},Big ${i},Read ${i % 3},t${i % 2}`,
      ),
      last,
    ].join('\n');
  /** A 12,500-row CSV into Girokonto, published on create, with `last` as its last row; the import once read. */
  const publishedOnCreate = (last: string) =>
    createRead({ raw_file_content: bigCsv(last), account_id: checking, publish: 'true' });
  const familyCounts = async () =>
    (
      await server.query<{ entries: number; categories: number; tags: number }>(
        `select (select count(*) from entries where family_id = $1)::int as entries,
                (select count(*) from categories where family_id = $1 and name like 'Read %')::int as categories,
                (select count(*) from tags where family_id = $1 and name in ('t0', 't1'))::int as tags`,
        [household.familyId],
      )
    )[0]!;

  it('writes every row in the job that reads it and ends complete, with its categories and tags', async () => {
    const detail = await publishedOnCreate('2023-06-01,-7,Last,Read 0,t1');
    expect(detail).toMatchObject({
      status: 'complete',
      error: null,
      rows_count: ROWS,
      stats: { valid_rows_count: ROWS, invalid_rows_count: 0, imported_count: ROWS },
    });
    const [written] = await server.query<{ n: number; total: string; tagged: number }>(
      `select count(*)::int as n, sum(e.amount)::text as total,
              (select count(*) from taggings g join entries x on x.entryable_id = g.taggable_id where x.import_id = $1)::int as tagged
       from entries e where e.import_id = $1`,
      [detail.id],
    );
    // Stored sign: positive is money out. 1 + 2 + ... + 12,499, and the last row's 7.
    expect(written).toEqual({ n: ROWS, total: `${((ROWS - 1) * ROWS) / 2 + 7}.0000`, tagged: ROWS });
    expect((await rows(detail.id)).body.meta.total_count).toBe(ROWS);
    expect((await revert(detail.id)).status).toBe(202);
    await server.drainJobs();
    expect(await importedEntries(detail.id)).toEqual([]);
  });

  it('keeps nothing it wrote when a row after the first range is invalid: pending with that row', async () => {
    const before = await familyCounts();
    const detail = await publishedOnCreate('not a date,-7,Last,Read 9,t9');
    expect(detail).toMatchObject({
      status: 'pending',
      rows_count: ROWS,
      stats: { valid_rows_count: ROWS - 1, invalid_rows_count: 1, imported_count: 0 },
    });
    expect(await importedEntries(detail.id)).toEqual([]);
    expect(await familyCounts()).toEqual(before);
    const invalid = await rows(detail.id, { valid: 'false' });
    expect(invalid.body.data.map((row: { row_number: number }) => row.row_number)).toEqual([ROWS]);
  });

  it('fails as a publish would when a row after the first range is refused by the writer, writing nothing', async () => {
    const before = await familyCounts();
    // A tenth of a cent: readable, but finer than the euro's cents.
    const detail = await publishedOnCreate('2023-06-01,-7.001,Last,Read 0,t1');
    expect(detail).toMatchObject({
      status: 'failed',
      rows_count: ROWS,
      stats: { valid_rows_count: ROWS, invalid_rows_count: 0, imported_count: 0 },
    });
    expect(detail.error).toMatch(new RegExp(`^Row ${ROWS}: `));
    expect(await importedEntries(detail.id)).toEqual([]);
    expect(await familyCounts()).toEqual(before);
    expect((await rows(detail.id)).body.meta.total_count).toBe(ROWS);
  });
});

describe('while the account is being written', () => {
  it('takes a new import of the account at once: a write holds the account without holding back rows that refer to it', async () => {
    // What a transaction import written as it is read holds for minutes: the request writers' lock,
    // and those its entries' inserts take through triggers: the balance bound's queue and the mark
    // of the first date whose balance changed.
    await server.orm.em.fork().transactional(async (tx) => {
      await lockAccount(tx, household.familyId, checking);
      await sql(tx, `select queue_balance_bound(array[?]::uuid[], '{}')`, [checking]);
      await sql(
        tx,
        `select mark_balances_stale(jsonb_build_array(jsonb_build_object('account_id', ?::uuid, 'date', ?::date)))`,
        [checking, '2024-03-01'],
      );
      let answered = false;
      const status = create({ raw_file_content: GERMAN_BANK, ...GERMAN_CONFIG, account_id: checking }).then(
        (answer) => answer.status,
        (error: unknown) => String(error),
      );
      void status.finally(() => (answered = true));
      // Whichever comes first, the answer or the request's backend waiting for a lock: no clock.
      const waited = (async () => {
        while (!answered) {
          const [row] = await server.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          );
          if (row!.n > 0) return 'waited for a lock';
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return 'answered';
      })();
      expect(await Promise.race([status, waited])).toBe(201);
    });
    await server.drainJobs();
  });
});

describe('accounts of the rows', () => {
  it('go into the account each row names, in its currency unless the row says otherwise', async () => {
    const csv = [
      'date,amount,name,account,currency',
      '2024-01-05,-10,A,savings,',
      '2024-01-06,-20,B,GIROKONTO,USD',
    ].join('\n');
    const created = await createRead({ raw_file_content: csv, publish: 'true' });
    expect(created.status).toBe('complete');
    expect(await importedEntries(created.id)).toEqual([
      { name: 'A', amount: '10.0000', currency: 'USD', date: '2024-01-05', account_id: savings },
      { name: 'B', amount: '20.0000', currency: 'USD', date: '2024-01-06', account_id: checking },
    ]);
  });

  it('fail the whole import, writing nothing, when a row names no account of the family', async () => {
    const csv = ['date,amount,account', '2024-01-05,-10,Savings', '2024-01-06,-20,Nowhere'].join('\n');
    const detail = await createRead({ raw_file_content: csv, publish: 'true' });
    expect(detail).toMatchObject({
      status: 'failed',
      error: "Row 2: account 'Nowhere' is not an account of the family",
    });
    expect(await importedEntries(detail.id)).toEqual([]);
  });
});

describe('limits and boundaries', () => {
  it('takes exactly 10,485,760 bytes of CSV and refuses one byte more with 422 content_too_large', async () => {
    // Long notes keep the row count small: the limit is about bytes, and € (3 bytes) shows that
    // bytes, not characters, are counted.
    const header = 'date,amount,notes\n';
    const row = `2024-01-01,1.00,${'€'.repeat(3000)}\n`;
    const rowsNeeded = Math.floor((CSV_CONTENT_LIMIT - header.length) / Buffer.byteLength(row));
    const body = header + row.repeat(rowsNeeded);
    const exact = body + '2024-01-02,2.00,' + 'x'.repeat(CSV_CONTENT_LIMIT - Buffer.byteLength(body) - 16);
    expect(Buffer.byteLength(exact)).toBe(CSV_CONTENT_LIMIT);
    const accepted = await createRead({ raw_file_content: exact, account_id: checking });
    expect(accepted.rows_count).toBe(rowsNeeded + 1);

    const before = await databaseSnapshot(server);
    const refused = await create({ raw_file_content: `${exact}x`, account_id: checking });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'content_too_large' });
    expect(refused.body.errors[0]).toMatchObject({ path: '/body/raw_file_content' });
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('answers a CSV above 1 MiB, read and checked off the event loop, as it answers a small one', async () => {
    const small = 'date,amount\n2024-01-01,1.00\n';
    const large = small + '2024-01-02,2.00\n'.repeat(80_000);
    expect(Buffer.byteLength(large)).toBeGreaterThan(1024 * 1024);
    const send = (csv: string, json: (content: string) => string) =>
      server.api.call('createImport', { key: household.writeKey, body: json(JSON.stringify(csv)) });
    const faults: [string, (content: string) => string][] = [
      ['malformed JSON', (content) => `{"type": , "raw_file_content": ${content}}`],
      ['a __proto__ member', (content) => `{"__proto__": {}, "raw_file_content": ${content}}`],
      ['a wrong type, an unknown member', (content) => `{"raw_file_content": ${content}, "publish": 1, "colour": "x"}`],
      ['an unknown type', (content) => `{"raw_file_content": ${content}, "type": "BogusImport"}`],
      ['a NUL character', (content) => `{"raw_file_content": ${content}, "date_format": "%Y\\u0000"}`],
      [
        'an account of no family',
        (content) => `{"raw_file_content": ${content}, "account_id": "${crypto.randomUUID()}"}`,
      ],
    ];
    const before = await databaseSnapshot(server);
    for (const [fault, json] of faults) {
      const [answer, offThread] = [await send(small, json), await send(large, json)];
      expect(answer.status, fault).toBeGreaterThanOrEqual(400);
      expect({ status: offThread.status, body: offThread.body }, fault).toEqual({
        status: answer.status,
        body: answer.body,
      });
    }
    expect(await databaseSnapshot(server)).toEqual(before);
    const accepted = await createRead({ raw_file_content: large, account_id: checking });
    expect(accepted).toMatchObject({ status: 'pending', stats: { rows_count: 80_001, invalid_rows_count: 0 } });
  });

  it('stores the CSV byte for byte, small or above 1 MiB, tells two large files apart by Idempotency-Key, keeps no file a replay stored', async () => {
    const small = 'date,amount,notes\n2024-01-01,1.00,Müller € 😀\n';
    const large = small + '2024-01-02,2.00,Straße\n'.repeat(60_000);
    expect(Buffer.byteLength(large)).toBeGreaterThan(1024 * 1024);
    const stored = async (id: string) =>
      (
        await server.query<{ csv: string }>(
          'select f.content as csv from imports i join import_files f on f.id = i.file_id where i.id = $1',
          [id],
        )
      )[0]!.csv;
    for (const csv of [small, large]) {
      const created = await create({ raw_file_content: csv, account_id: checking });
      expect(created.status).toBe(201);
      expect(await stored(created.body.data.id)).toBe(csv);
    }
    const key = `large-${crypto.randomUUID()}`;
    const sendWithKey = (csv: string) =>
      server.api.call('createImport', {
        key: household.writeKey,
        body: { raw_file_content: csv, account_id: checking },
        headers: { 'idempotency-key': key },
      });
    const first = await sendWithKey(large);
    expect(first.status).toBe(201);
    const again = await sendWithKey(large);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    // The same size, one character changed at the end: another request.
    const changed = await sendWithKey(`${large.slice(0, -2)}9\n`);
    expect({ status: changed.status, error: changed.body.error }).toEqual({
      status: 422,
      error: 'idempotency_key_reused',
    });

    // The replay and the refused request each had their CSV stored before the key was looked up;
    // no import took them, and they went as the requests answered.
    const untaken = () =>
      server.query<{ id: string }>(
        'select id from import_files f where not exists (select from imports where file_id = f.id) order by id',
      );
    expect(await untaken()).toEqual([]);
    // A process that died between storing and answering leaves its file: the hourly expiry removes
    // it once it is an hour old.
    await server.query(
      `insert into import_files (id, content) values (gen_random_uuid(), 'a'), (gen_random_uuid(), 'b')`,
    );
    const leftOver = await untaken();
    expect(leftOver).toHaveLength(2);
    const sweep = async () => {
      await server.query(`select graphile_worker.add_job('import_expire', '{}')`);
      await server.drainJobs();
    };
    await sweep();
    expect(await untaken()).toEqual(leftOver);
    await server.query(`update import_files set created_at = now() - interval '61 minutes' where id = $1`, [
      leftOver[0]!.id,
    ]);
    await sweep();
    expect(await untaken()).toEqual([leftOver[1]]);
    await server.query(`update import_files set created_at = now() - interval '61 minutes'`);
    await sweep();
    expect(await untaken()).toEqual([]);
    // Files that imports took stay, whatever their age.
    expect(await stored(first.body.data.id)).toBe(large);
  });

  it("removes an import's CSV with the import", async () => {
    const large = 'date,amount,name\n' + '2024-01-02,2.00,Bakery\n'.repeat(60_000);
    const created = await create({ raw_file_content: large, account_id: checking });
    expect(created.status).toBe(201);
    await server.drainJobs();
    const files = async () => (await server.query<{ n: number }>('select count(*)::int as n from import_files'))[0]!.n;
    const before = await files();
    const deleted = await server.api.call('deleteImport', {
      key: household.writeKey,
      params: { id: created.body.data.id },
    });
    expect(deleted.status).toBe(200);
    expect(await files()).toBe(before - 1);
  });

  it('keeps families apart and scopes as usual', async () => {
    const mine = await createRead({ raw_file_content: 'date,amount\n2024-01-01,1', account_id: checking });
    expect((await show(mine.id, other.readKey)).status).toBe(404);
    expect((await server.api.call('listImportRows', { key: other.readKey, params: { id: mine.id } })).status).toBe(404);
    expect((await server.api.call('publishImport', { key: other.writeKey, params: { id: mine.id } })).status).toBe(404);
    const foreignAccount = await create(
      { raw_file_content: 'date,amount\n2024-01-01,1', account_id: checking },
      other.writeKey,
    );
    expect(foreignAccount.status).toBe(404);
    expect((await create({ raw_file_content: 'date,amount\n2024-01-01,1' }, household.readKey)).status).toBe(403);
    const listed = await server.api.call('listImports', { key: other.readKey });
    expect(listed.body.data).toEqual([]);
    const filtered = await server.api.call('listImports', {
      key: household.readKey,
      query: { status: 'complete', type: 'TransactionImport', per_page: 100 },
    });
    expect(filtered.body.data.length).toBeGreaterThan(0);
    expect(filtered.body.data.every((item: { status: string }) => item.status === 'complete')).toBe(true);
  });

  it('changes, publishes and reverts one import under 20 concurrent requests each: one state change, rows consistent', async () => {
    const csv = 'date,amount,name\n2024-03-01,1,A\n2024-03-02,2,B\n2024-03-03,3,C\n';
    const id = (await createRead({ raw_file_content: csv, account_id: checking })).id as string;
    const change = (i: number) =>
      server.api.call('updateImport', {
        key: household.writeKey,
        params: { id },
        body: { signage_convention: i % 2 ? 'inflows_negative' : 'inflows_positive', name_col_label: 'name' },
      });
    // The first change queues the reading; the others change the waiting import's configuration.
    const changed = await Promise.all(Array.from({ length: 20 }, (_, i) => change(i)));
    expect(changed.map((response) => response.status)).toEqual(Array(20).fill(200));
    const [jobsToRead] = await server.query<{ n: number }>(
      `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'import_stage' and key = $1`,
      [`import_stage:${id}`],
    );
    expect(jobsToRead!.n).toBe(1);
    await server.drainJobs();
    const [staged] = await server.query<{ n: number }>(
      'select count(*)::int as n from import_rows where import_id = $1',
      [id],
    );
    expect(staged!.n).toBe(3);

    const published = await Promise.all(Array.from({ length: 20 }, () => publish(id)));
    expect(published.map((response) => response.status).sort()).toEqual([202, ...Array(19).fill(422)]);
    const [jobs] = await server.query<{ n: number }>(
      `select count(*)::int as n from graphile_worker.jobs where key = $1`,
      [`import_process:${id}`],
    );
    expect(jobs!.n).toBe(1);
    await server.drainJobs();
    expect(await importedEntries(id)).toHaveLength(3);

    const reverted = await Promise.all(Array.from({ length: 20 }, () => revert(id)));
    expect(reverted.map((response) => response.status).sort()).toEqual([202, ...Array(19).fill(422)]);
    await server.drainJobs();
    expect((await show(id)).body.data.status).toBe('pending');
    expect(await importedEntries(id)).toEqual([]);
  });

  it('imports 20 files into one account at once, each completely, nothing twice', async () => {
    const csv = (n: number) =>
      [
        'date,amount,name',
        ...Array.from({ length: 50 }, (_, i) => `2024-02-${String((i % 28) + 1).padStart(2, '0')},-1,c${n}`),
      ].join('\n');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) => create({ raw_file_content: csv(n), account_id: savings, publish: 'true' })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    await server.drainJobs();
    for (const response of responses) {
      const detail = (await show(response.body.data.id)).body.data;
      expect(detail).toMatchObject({ status: 'complete', stats: { imported_count: 50 } });
    }
    const [counted] = await server.query<{ n: number; names: number }>(
      `select count(*)::int as n, count(distinct name)::int as names from entries where name like 'c%' and account_id = $1`,
      [savings],
    );
    expect(counted).toEqual({ n: 1000, names: 20 });
  });

  it('stores 20 large files sent at once from the body thread, each in its own import, none left over', async () => {
    // Above 1 MiB: read and stored off the event loop (import-files.ts `storeUpload`).
    const csv = (n: number) => `date,amount,name\n${`2024-03-01,-1,large${n}\n`.repeat(60_000)}`;
    expect(Buffer.byteLength(csv(0))).toBeGreaterThan(1024 * 1024);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) => create({ raw_file_content: csv(n), account_id: savings })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    const stored = await server.query<{ id: string; csv: string }>(
      'select i.id, f.content as csv from imports i join import_files f on f.id = i.file_id where i.id = any($1::uuid[])',
      [responses.map((response) => response.body.data.id)],
    );
    expect(new Map(stored.map((row) => [row.id, row.csv]))).toEqual(
      new Map(responses.map((response, n) => [response.body.data.id as string, csv(n)])),
    );
    const [untaken] = await server.query<{ n: number }>(
      'select count(*)::int as n from import_files f where not exists (select from imports where file_id = f.id)',
    );
    expect(untaken!.n).toBe(0);
  });
});
