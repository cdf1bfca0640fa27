import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let account: string;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
  account = (
    await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Fuzzed', account_type: 'investment' } },
    })
  ).body.data.id;
});
afterAll(() => server?.close());

const cell = fc.oneof(
  fc.constantFrom(
    '',
    '2024-01-31',
    '31.01.2024',
    '01/31/2024',
    '1,234.56',
    '-1.234,56',
    '(12)',
    'abc',
    '"',
    '""',
    'a|b',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const separator = fc.constantFrom(',', ';', '\t', '|');
/** CSV-like text: ragged rows of random cells, any separator, any line end, sometimes a BOM or a lone quote. */
const csvText = fc
  .tuple(
    fc.array(fc.array(cell, { minLength: 0, maxLength: 7 }), { minLength: 0, maxLength: 8 }),
    separator,
    fc.constantFrom('\n', '\r\n', '\r'),
    fc.boolean(),
  )
  .map(([rows, sep, end, bom]) => (bom ? '\uFEFF' : '') + rows.map((row) => row.join(sep)).join(end));
const rawBytes = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1'));

const configuration = fc.record(
  {
    type: fc.constantFrom(
      'TransactionImport',
      'TradeImport',
      'AccountImport',
      'CategoryImport',
      'ExternalImport',
      'RuleImport',
    ),
    col_sep: fc.constantFrom(',', ';'),
    number_format: fc.constantFrom('1,234.56', '1.234,56', '1 234,56', '1,234'),
    date_format: fc.constantFrom('%Y-%m-%d', '%d.%m.%Y', '%m/%d/%Y', '%d/%m/%y', '%b %d, %Y', '%Q', '%'),
    signage_convention: fc.constantFrom('inflows_positive', 'inflows_negative'),
    amount_col_label: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['type'] },
);

it('answers any CSV text with a documented 201 or 4xx, and publishing it ends complete or failed, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(csvText, rawBytes), configuration, fc.boolean(), async (text, config, withAccount) => {
      const body = {
        raw_file_content: text,
        ...config,
        ...(withAccount ? { account_id: account } : {}),
        publish: 'true',
      };
      const created = await server.api.call('createImport', { key: household.writeKey, body });
      expect(created.status === 201 || (created.status >= 400 && created.status < 500)).toBe(true);
      if (created.status !== 201) return;
      const id = created.body.data.id as string;
      const rows = await server.api.call('listImportRows', { key: household.readKey, params: { id } });
      expect(rows.status).toBe(200);
      await server.drainJobs();
      const detail = (await server.api.call('getImport', { key: household.readKey, params: { id } })).body.data;
      expect(['pending', 'complete', 'failed']).toContain(detail.status);
      if (detail.status === 'failed') expect(detail.error).toMatch(/^Row \d+: |^.+ imports cannot be processed yet$/);
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 40) * 2 },
  );
}, 240_000);

it('reads 10 MiB of one column without trouble', async () => {
  // Rows of 9 bytes: the JSON escapes of the line ends stay within the body limit.
  const text = `amount\n${'12345678\n'.repeat(Math.floor((10 * 1024 * 1024 - 7) / 9))}`;
  const created = await server.api.call('createImport', { key: household.writeKey, body: { raw_file_content: text } });
  expect(created.status).toBe(201);
  await server.drainJobs();
  const detail = (await server.api.call('getImport', { key: household.readKey, params: { id: created.body.data.id } }))
    .body.data;
  expect(detail).toMatchObject({ rows_count: 0, error: "the header has no column 'date', 'account'" });
}, 120_000);
