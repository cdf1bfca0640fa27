import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOUNDS } from '../../server/core/money/bounds.ts';
import { expectBalancesFresh } from '../support/fresh-balances.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Issue 27, item 5: amounts each within the amount bound added up past what the balance columns
// hold (numeric(19,4)); the account sync failed 25 times and the balance froze. Now a write that
// would take an account's reach past BOUNDS.balance is a 422 that writes nothing (docs/money.md).
let server: TestServer;
let who: TestHousehold;

beforeAll(async () => {
  server = await startTestServer();
  who = await createHousehold(server); // USD
});
afterAll(() => server?.close());

const BIGGEST = 10_000_000_000_000; // BOUNDS.amount
/** 999,999,999,999,999 = 99 x 10^13 + 9,999,999,999,999: the bound exactly. */
const LAST_TO_BOUND = '9999999999999';

const refusal = (account: string) =>
  `Account '${account}' would exceed the balance bound: its entries and holdings may add up to at most ${BOUNDS.balance}`;

type Call = Parameters<TestServer['api']['call']>;
const call = (operationId: Call[0], options: Omit<Call[1], 'key'> = {}) =>
  server.api.call(operationId, { key: who.writeKey, ...options } as Call[1]);

async function openAccount(name: string, account_type = 'depository'): Promise<string> {
  const response = await call('createAccount', { body: { account: { name, account_type } } as never });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

const spend = (account_id: string, amount: number | string, extra: Record<string, unknown> = {}) =>
  call('createTransaction', {
    body: {
      transaction: { account_id, date: '2024-05-01', amount, name: 'Spend', nature: 'expense', ...extra },
    } as never,
  });

/** A published TransactionImport of one expense per amount into the account; the import afterwards. */
async function importExpenses(account_id: string, amounts: string[]) {
  const content = ['date,amount,name', ...amounts.map((amount, i) => `2024-04-01,-${amount},Row ${i + 1}`)].join('\n');
  const created = await call('createImport', {
    body: { type: 'TransactionImport', account_id, publish: 'true', raw_file_content: content } as never,
  });
  expect(created.status).toBe(201);
  await server.drainJobs();
  return (await call('getImport', { params: { id: created.body.data.id } })).body.data;
}

const entriesOf = async (account: string) =>
  Number(
    (await server.query<{ n: string }>('select count(*) as n from entries where account_id = $1', [account]))[0]!.n,
  );

/** The account's figures as stored (decimal text: its cents are beyond what a JSON number keeps exactly). */
const figures = async (account: string) =>
  (
    await server.query<{ balance: string; holdings_value: string; sync_error: string | null; stale: boolean }>(
      `select balance::text, holdings_value::text, sync_error, balances_stale_from is not null as stale
         from accounts where id = $1`,
      [account],
    )
  )[0]!;

describe('the balance bound', () => {
  it('takes an import up to the bound exactly, then refuses a write one cent past it', async () => {
    const account = await openAccount('Edge');
    const seeded = await importExpenses(account, [...Array(99).fill(String(BIGGEST)), LAST_TO_BOUND]);
    expect(seeded).toMatchObject({ status: 'complete', error: null, stats: { imported_count: 100 } });

    const cent = await spend(account, 0.01);
    expect(cent.status).toBe(422);
    expect(cent.body.errors).toEqual([{ path: '/body/transaction/amount', message: refusal('Edge') }]);
    const valuation = await call('createValuation', {
      body: { valuation: { account_id: account, date: '2024-05-02', amount: 1 } } as never,
    });
    expect(valuation.body.errors).toEqual([{ path: '/body/valuation/amount', message: refusal('Edge') }]);
    const other = await openAccount('Edge savings');
    const transfer = await call('createTransfer', {
      body: { transfer: { from_account_id: other, to_account_id: account, amount: 1, date: '2024-05-03' } } as never,
    });
    expect(transfer.body.errors).toEqual([{ path: '/body/transfer/amount', message: refusal('Edge') }]);
    const [smallest] = await server.query<{ id: string }>(
      `select id from entries where account_id = $1 and amount = $2`,
      [account, LAST_TO_BOUND],
    );
    const raised = await call('updateTransaction', {
      params: { id: smallest!.id },
      body: { transaction: { amount: BIGGEST, nature: 'expense' } } as never,
    });
    expect(raised.body.errors).toEqual([{ path: '/body/transaction/amount', message: refusal('Edge') }]);
    expect(await entriesOf(account)).toBe(100);
    expect(await entriesOf(other)).toBe(0);

    // The sync stores the bound itself.
    await server.drainJobs();
    expect(await figures(account)).toEqual({
      balance: `-${BOUNDS.balance}.0000`,
      holdings_value: '0.0000',
      sync_error: null,
      stale: false,
    });
    // What leaves the account makes room again.
    const lowered = await call('updateTransaction', {
      params: { id: smallest!.id },
      body: { transaction: { amount: 9999999999998.99, nature: 'expense' } } as never,
    });
    expect(lowered.status).toBe(200);
    expect((await spend(account, 0.01)).status).toBe(201);
    expect((await spend(account, 0.01)).status).toBe(422);
  });

  it('fails an import that would go past the bound, naming the account and writing nothing', async () => {
    const account = await openAccount('Flooded');
    const failed = await importExpenses(account, Array(120).fill(String(BIGGEST)));
    expect(failed).toMatchObject({ status: 'failed', error: refusal('Flooded'), stats: { imported_count: 0 } });
    expect(await entriesOf(account)).toBe(0);
    // One unit past the bound is refused too.
    const past = await importExpenses(account, [...Array(99).fill(String(BIGGEST)), LAST_TO_BOUND, '0.01']);
    expect(past).toMatchObject({ status: 'failed', error: refusal('Flooded') });
    expect(await entriesOf(account)).toBe(0);
  });

  it('lets exactly the writes that fit of 24 concurrent ones to one account through', async () => {
    const account = await openAccount('Crowded');
    // 10 x 10^13 below the bound.
    const seeded = await importExpenses(account, [...Array(89).fill(String(BIGGEST)), LAST_TO_BOUND]);
    expect(seeded.status).toBe('complete');
    const responses = await Promise.all(Array.from({ length: 24 }, () => spend(account, BIGGEST)));
    const counts = responses.reduce<Record<number, number>>((all, { status }) => ({ ...all, [status]: (all[status] ?? 0) + 1 }), {}); // prettier-ignore
    expect(counts).toEqual({ 201: 10, 422: 14 });
    for (const refused of responses.filter(({ status }) => status === 422)) {
      expect(refused.body.errors).toEqual([{ path: '/body/transaction/amount', message: refusal('Crowded') }]);
    }
    expect(await entriesOf(account)).toBe(100);
    const [totals] = await server.query<{ amount: string; entries: string }>(
      'select amount::text, entries::text from account_entry_totals where account_id = $1',
      [account],
    );
    expect(totals).toEqual({ amount: `${BOUNDS.balance}.0000`, entries: '100' });
    await expectBalancesFresh(server);
    expect(await figures(account)).toMatchObject({ balance: `-${BOUNDS.balance}.0000`, sync_error: null });
  });

  it('counts an entry in another currency at its own rate', async () => {
    const account = await openAccount('Abroad');
    // 10^7 EUR at 10^9 USD each: 10^16 USD.
    const converted = await spend(account, 10_000_000, { currency: 'EUR', exchange_rate: 1_000_000_000 });
    expect(converted.body.errors).toEqual([{ path: '/body/transaction/amount', message: refusal('Abroad') }]);
    expect((await spend(account, 999_999, { currency: 'EUR', exchange_rate: 1_000_000_000 })).status).toBe(201);
    await server.drainJobs();
    expect(await figures(account)).toMatchObject({ balance: '-999999000000000.0000', sync_error: null });
  });

  it('refuses a rate that would convert an account past the bound, either way round', async () => {
    const account = await openAccount('Euro spending');
    // No rate yet: left out of the balance (and named), so within the bound.
    expect((await spend(account, BIGGEST, { currency: 'EUR' })).status).toBe(201);
    const post = (from: string, to: string, rate: string) =>
      call('createExchangeRates', { body: { exchange_rates: [{ from, to, date: '2024-05-01', rate }] } as never });
    for (const [from, to, rate] of [
      ['EUR', 'USD', '100'],
      ['USD', 'EUR', '0.01'],
    ] as const) {
      const refused = await post(from, to, rate);
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([{ path: '/body/exchange_rates', message: refusal('Euro spending') }]);
    }
    expect(await server.query('select 1 from exchange_rates where family_id = $1', [who.familyId])).toEqual([]);
    // 10^13 x 99.99 and a cent for rounding: within.
    expect((await post('EUR', 'USD', '99.99')).status).toBe(200);
    await server.drainJobs();
    expect(await figures(account)).toMatchObject({ balance: '-999900000000000.0000', sync_error: null });
  });

  it('refuses a price that would value holdings past the bound', async () => {
    const brokerage = await openAccount('Brokerage', 'investment');
    const bought = await call('createTrade', {
      body: {
        trade: {
          account_id: brokerage,
          date: '2024-05-01',
          type: 'buy',
          qty: 1_000_000_000_000,
          price: 10,
          ticker: 'BIG',
        },
      } as never,
    });
    expect(bought.status).toBe(201);
    const price = (value: number) =>
      call('createSecurityPrices', {
        body: { security_prices: [{ ticker: 'BIG', date: '2024-05-02', price: value, currency: 'USD' }] } as never,
      });
    // 10^12 units at 1,000: 10^15 of holdings, on top of the 10^13 paid.
    const refused = await price(1000);
    expect(refused.body.errors).toEqual([{ path: '/body/security_prices', message: refusal('Brokerage') }]);
    expect(await server.query('select 1 from security_prices where family_id = $1', [who.familyId])).toEqual([]);
    expect((await price(980)).status).toBe(200);
    await server.drainJobs();
    expect(await figures(brokerage)).toMatchObject({
      balance: '970000000000000.0000',
      holdings_value: '980000000000000.0000',
      sync_error: null,
    });
    // A second security on top is refused at the trade.
    const more = await call('createTrade', {
      body: {
        trade: {
          account_id: brokerage,
          date: '2024-05-03',
          type: 'buy',
          qty: 100_000_000_000,
          price: 100,
          ticker: 'MORE',
        },
      } as never,
    });
    expect(more.body.errors).toEqual([{ path: '/body/trade/qty', message: refusal('Brokerage') }]);
    // A transaction counts the holdings too: 10^13 paid + 980 x 10^12 held + a cent for rounding, so
    // 9,999,999,999,998.99 more is the bound exactly.
    expect((await spend(brokerage, 9999999999998.99)).status).toBe(201);
    expect((await spend(brokerage, 0.01)).body.errors).toEqual([
      { path: '/body/transaction/amount', message: refusal('Brokerage') },
    ]);
  });
});

describe('a sync that overflows anyway (data written before the bound)', () => {
  it('says so on the account at once instead of retrying, and deleting entries brings it back', async () => {
    const account = await openAccount('Legacy');
    // As before the check existed: the sizes are kept, nothing is refused.
    await server.query('alter table balance_bound_pending disable trigger balance_bound_at_commit');
    try {
      expect((await importExpenses(account, Array(101).fill(String(BIGGEST)))).status).toBe('complete');
    } finally {
      await server.query('alter table balance_bound_pending enable trigger balance_bound_at_commit');
      await server.query('delete from balance_bound_pending');
    }
    await server.drainJobs();
    expect(await figures(account)).toEqual({
      balance: '0.0000',
      holdings_value: '0.0000',
      sync_error: `The balance and holdings could not be updated: they exceed ${BOUNDS.balance}, the most an account can hold. Correct or remove entries to update them.`,
      stale: true,
    });
    const jobs = await server.query('select 1 from graphile_worker.jobs where key = $1', [`account_sync:${account}`]);
    expect(jobs).toEqual([]);
    // A delete is never refused, even past the bound; two bring the account back within it.
    const [first, second] = await server.query<{ id: string }>('select id from entries where account_id = $1 limit 2', [
      account,
    ]);
    for (const { id } of [first!, second!]) {
      expect((await call('deleteTransaction', { params: { id } })).status).toBe(200);
    }
    await server.drainJobs();
    expect(await figures(account)).toEqual({
      balance: '-990000000000000.0000',
      holdings_value: '0.0000',
      sync_error: null,
      stale: false,
    });
  });
});
