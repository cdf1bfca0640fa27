import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import { createTransaction } from '../support/transactions-fixtures.ts';

/**
 * Transfers over HTTP and a real PostgreSQL, one household's story told in order: every figure
 * below is worked out by hand from the writes before it. Suggestions and balances come from the
 * background jobs, which the tests run with drainJobs.
 */
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
const accounts: Record<string, string> = {};
let theirTransaction: string;

const TAKEN = 'The transaction is already in a transfer';

async function account(key: string, name: string, account_type: string, balance = 0, currency?: string) {
  const response = await server.api.call('createAccount', {
    key,
    body: { account: { name, account_type, balance, currency } },
  });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

/** A transaction of the household: `amount` above zero is money out, below zero money in. */
async function transaction(account_id: string, date: string, amount: number, name: string, currency?: string) {
  return (await createTransaction(server, household.writeKey, { account_id, date, amount, name, currency })).id;
}

const post = (transfer: Record<string, unknown>, key = household.writeKey) =>
  server.api.call('createTransfer', { key, body: { transfer } });

async function created(transfer: Record<string, unknown>) {
  const response = await post(transfer);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

const getTransaction = async (id: string) =>
  (await server.api.call('getTransaction', { key: household.readKey, params: { id } })).body.data;

const balanceCents = async (id: string) =>
  (await server.api.call('getAccount', { key: household.readKey, params: { id } })).body.data.balance_cents as number;

async function listTransfers(query: Record<string, string> = {}, key = household.readKey) {
  const response = await server.api.call('listTransfers', { key, query });
  expect(response.status).toBe(200);
  return response.body.data as any[];
}

/** The suggestions as [outflow, inflow] transaction ids. */
async function suggestedPairs(): Promise<string[][]> {
  const data = await listTransfers({ status: 'suggested' });
  return data.map((transfer) => [transfer.outflow_transaction.id, transfer.inflow_transaction.id]);
}

/** Rows a refused request must leave as they were. */
async function rowCounts() {
  const [row] = await server.query(`select (select count(*) from transfers)::int as transfers,
    (select count(*) from entries)::int as entries, (select count(*) from transfer_rejections)::int as rejections`);
  return row;
}

async function refused(transfer: Record<string, unknown>, status: number) {
  const before = await rowCounts();
  const response = await post(transfer);
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(await rowCounts()).toEqual(before);
  return response.body;
}

const side = (id: string, name: string, account_type: string) => ({ id, name, account_type });

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  const key = household.writeKey;
  accounts.checking = await account(key, 'Checking', 'depository', 1000);
  accounts.savings = await account(key, 'Savings', 'depository');
  accounts.card = await account(key, 'Card', 'credit_card');
  accounts.brokerage = await account(key, 'Brokerage', 'investment');
  accounts.euro = await account(key, 'Euro Account', 'depository', 0, 'EUR');
  accounts.theirs = await account(other.writeKey, 'Their Checking', 'depository', 100);
  theirTransaction = (
    await createTransaction(server, other.writeKey, {
      account_id: accounts.theirs,
      date: '2024-03-01',
      amount: -250,
      name: 'Theirs',
    })
  ).id;
});
afterAll(() => server?.close());

const ids: Record<string, string> = {};

describe('a new transfer', () => {
  it('writes the outflow, the inflow and the confirmed transfer; the sync moves both balances', async () => {
    const transfer = await created({
      from_account_id: accounts.checking,
      to_account_id: accounts.savings,
      amount: 250,
      date: '2024-03-01',
      notes: 'Rainy day fund',
    });
    ids.savingsTransfer = transfer.id;
    expect(transfer).toEqual({
      id: expect.any(String),
      status: 'confirmed',
      kind: 'funds_movement',
      date: '2024-03-01',
      amount: '$250.00',
      amount_cents: 25000,
      currency: 'USD',
      outflow_transaction: {
        id: expect.any(String),
        date: '2024-03-01',
        amount: '$250.00',
        amount_cents: 25000,
        currency: 'USD',
        account: side(accounts.checking!, 'Checking', 'depository'),
      },
      inflow_transaction: {
        id: expect.any(String),
        date: '2024-03-01',
        // Each side keeps its transaction's stored sign; amount_cents stays absolute (issue 28).
        amount: '-$250.00',
        amount_cents: 25000,
        currency: 'USD',
        account: side(accounts.savings!, 'Savings', 'depository'),
      },
      notes: 'Rainy day fund',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const stored = await server.query(
      `select account_id, amount::text, name, notes from entries where id = any($1) order by amount desc`,
      [[transfer.outflow_transaction.id, transfer.inflow_transaction.id]],
    );
    expect(stored).toEqual([
      { account_id: accounts.checking, amount: '250.0000', name: 'Transfer to Savings', notes: 'Rainy day fund' },
      { account_id: accounts.savings, amount: '-250.0000', name: 'Transfer from Checking', notes: 'Rainy day fund' },
    ]);
    await server.drainJobs();
    expect(await balanceCents(accounts.checking!)).toBe(75_000); // 1,000 - 250
    expect(await balanceCents(accounts.savings!)).toBe(25_000);

    const outflow = await getTransaction(transfer.outflow_transaction.id);
    expect([outflow.classification, outflow.signed_amount_cents, outflow.transfer]).toEqual([
      'transfer',
      -25000,
      { id: transfer.id, kind: 'funds_movement', other_account: side(accounts.savings!, 'Savings', 'depository') },
    ]);
    const inflow = await getTransaction(transfer.inflow_transaction.id);
    expect([inflow.classification, inflow.transfer.other_account.id]).toEqual(['transfer', accounts.checking]);
    ids.savingsOutflow = transfer.outflow_transaction.id;
    ids.savingsInflow = transfer.inflow_transaction.id;
  });

  it('pays a credit card: a payment to a liability lowers its debt', async () => {
    await transaction(accounts.card!, '2024-03-05', 120, 'Groceries on card');
    await server.drainJobs();
    expect(await balanceCents(accounts.card!)).toBe(12_000); // owed
    const payment = await created({
      from_account_id: accounts.checking,
      to_account_id: accounts.card,
      amount: 120,
      date: '2024-03-20',
    });
    ids.cardPayment = payment.id;
    ids.cardPaymentOutflow = payment.outflow_transaction.id;
    expect(payment.kind).toBe('credit_card_payment');
    expect((await getTransaction(payment.outflow_transaction.id)).name).toBe('Payment to Card');
    expect((await getTransaction(payment.inflow_transaction.id)).name).toBe('Payment from Checking');
    await server.drainJobs();
    expect(await balanceCents(accounts.card!)).toBe(0); // 120 owed - 120 paid
    expect(await balanceCents(accounts.checking!)).toBe(63_000); // 750 - 120
  });

  it('leaves transfers out of income and expense in the type filter; type=transfer lists only them', async () => {
    const salary = await transaction(accounts.checking!, '2024-03-15', -2000, 'Salary');
    const coffee = await transaction(accounts.checking!, '2024-03-16', 4.5, 'Coffee');
    const march = async (type: string) => {
      const response = await server.api.call('listTransactions', {
        key: household.readKey,
        query: { account_id: accounts.checking!, start_date: '2024-03-01', end_date: '2024-03-31', type },
      });
      return response.body.data.map((item: { id: string; classification: string }) => [item.id, item.classification]);
    };
    expect(await march('transfer')).toEqual([
      [ids.cardPaymentOutflow, 'transfer'],
      [ids.savingsOutflow, 'transfer'],
    ]);
    expect(await march('expense')).toEqual([[coffee, 'expense']]);
    expect(await march('income')).toEqual([[salary, 'income']]);
    await server.drainJobs();
  });

  it('converts at the rate of the date into another currency, names a missing rate, takes to_amount', async () => {
    // A family rate for EUR -> USD; USD -> EUR is its inverse.
    await server.query(
      `insert into exchange_rates (family_id, from_currency, to_currency, date, rate, source)
       values ($1, 'EUR', 'USD', '2024-01-03', 1.08, 'test')`,
      [household.familyId],
    );
    const body = await refused(
      { from_account_id: accounts.checking, to_account_id: accounts.euro, amount: 100, date: '2023-12-01' },
      422,
    );
    expect(body.errors).toEqual([
      { message: 'no exchange rate from USD to EUR on 2023-12-01', path: '/body/transfer/to_amount' },
    ]);
    const atRate = await created({
      from_account_id: accounts.checking,
      to_account_id: accounts.euro,
      amount: 100,
      date: '2024-01-05',
    });
    // 100 / 1.08 = 92.5925... -> 92.59, the rate of 2024-01-03 being the latest on or before the date.
    expect([atRate.amount, atRate.inflow_transaction.amount, atRate.inflow_transaction.currency]).toEqual([
      '$100.00',
      '-€92.59',
      'EUR',
    ]);
    const given = await created({
      from_account_id: accounts.checking,
      to_account_id: accounts.euro,
      amount: 50,
      to_amount: 45.5,
      date: '2023-12-01',
    });
    expect(given.inflow_transaction.amount).toBe('-€45.50');
    await server.drainJobs();
    expect(await balanceCents(accounts.euro!)).toBe(13_809); // 92.59 + 45.50
  });

  it('refuses bad input with the documented error and writes nothing', async () => {
    const base = {
      from_account_id: accounts.checking,
      to_account_id: accounts.savings,
      amount: 10,
      date: '2024-03-02',
    };
    expect((await refused({ ...base, to_account_id: accounts.checking }, 422)).errors).toEqual([
      { message: 'to_account_id must differ from from_account_id', path: '/body/transfer/to_account_id' },
    ]);
    expect((await refused({ ...base, to_account_id: accounts.theirs }, 404)).message).toBe('Account not found');
    expect((await refused({ ...base, from_account_id: accounts.theirs }, 404)).error).toBe('not_found');
    expect((await refused({ ...base, amount: 0 }, 422)).error).toBe('validation_failed');
    expect((await refused({ ...base, amount: -5 }, 422)).error).toBe('validation_failed');
    expect((await refused({ ...base, amount: 10.005 }, 422)).errors).toEqual([
      { message: 'amount must have at most 2 decimal places: the minor unit of USD', path: '/body/transfer/amount' },
    ]);
    expect((await refused({ ...base, to_amount: 11 }, 422)).errors).toEqual([
      { message: 'to_amount must equal amount: both accounts are in USD', path: '/body/transfer/to_amount' },
    ]);
    // Both shapes at once, or neither whole, is not a transfer.
    await refused({ ...base, outflow_transaction_id: ids.savingsOutflow }, 422);
    await refused({ from_account_id: accounts.checking, to_account_id: accounts.savings }, 422);
    // The other family's key sees none of this family's accounts.
    expect((await post(base, other.writeKey)).status).toBe(404);
  });
});

describe('linking two transactions', () => {
  it('links an outflow and an inflow that agree; a suggestion of the same pair can then no longer be confirmed', async () => {
    ids.toBrokerage = await transaction(accounts.checking!, '2024-04-02', 500, 'To brokerage');
    ids.deposit = await transaction(accounts.brokerage!, '2024-04-04', -497.5, 'Deposit');
    await server.drainJobs();
    const [suggestion] = await listTransfers({ status: 'suggested' });
    expect([suggestion.outflow_transaction.id, suggestion.inflow_transaction.id]).toEqual([
      ids.toBrokerage,
      ids.deposit,
    ]);

    const linked = await created({ outflow_transaction_id: ids.toBrokerage, inflow_transaction_id: ids.deposit });
    ids.link = linked.id;
    // 500 and 497.50 are 2.50 apart: within 1% of 500.
    expect([linked.status, linked.kind, linked.amount, linked.inflow_transaction.amount]).toEqual([
      'confirmed',
      'investment_contribution',
      '$500.00',
      '-$497.50',
    ]);
    expect((await getTransaction(ids.deposit)).classification).toBe('transfer');

    const confirm = await server.api.call('confirmTransfer', {
      key: household.writeKey,
      params: { id: suggestion.id },
    });
    expect([confirm.status, confirm.body.errors]).toEqual([422, [{ message: TAKEN, path: '/path/id' }]]);
    // The next suggestion run, after any write, removes the suggestion the link overtook.
    await transaction(accounts.checking!, '2024-04-10', 3.8, 'Coffee');
    await server.drainJobs();
    expect(await suggestedPairs()).toEqual([]);
  });

  it('refuses pairs that break the rule, names the rule, and writes nothing', async () => {
    const out = await transaction(accounts.checking!, '2024-05-01', 100, 'Out');
    const late = await transaction(accounts.savings!, '2024-05-06', -100, 'Five days later');
    const off = await transaction(accounts.savings!, '2024-05-02', -98, 'Two percent less');
    const sameAccount = await transaction(accounts.checking!, '2024-05-01', -100, 'Same account');
    const alsoOut = await transaction(accounts.checking!, '2024-05-01', 100, 'Also out');
    const link = (outflow: string, inflow: string, status = 422) =>
      refused({ outflow_transaction_id: outflow, inflow_transaction_id: inflow }, status);
    const inflowPath = '/body/transfer/inflow_transaction_id';
    expect((await link(out, late)).errors).toEqual([
      { message: 'The two transactions must be at most 4 days apart', path: inflowPath },
    ]);
    expect((await link(out, off)).errors).toEqual([
      { message: 'The two amounts must agree within 1% once converted', path: inflowPath },
    ]);
    expect((await link(out, sameAccount)).errors).toEqual([
      { message: 'The two transactions must be on different accounts', path: inflowPath },
    ]);
    expect((await link(out, alsoOut)).errors.map((error: { message: string }) => error.message)).toEqual([
      'The two transactions must be on different accounts',
      'inflow_transaction_id must name an inflow (money in)',
      'The two amounts must agree within 1% once converted',
    ]);
    expect((await link(out, theirTransaction, 404)).message).toBe('Transaction not found');
    // Across currencies the outflow is converted at its date's rate: 100 USD on 2024-05-01 has none.
    const euroIn = await transaction(accounts.euro!, '2024-05-01', -92.6, 'Euros in', 'EUR');
    expect((await link(out, euroIn)).errors).toEqual([
      { message: 'no exchange rate from USD to EUR on 2024-05-01', path: inflowPath },
    ]);
    // An outflow already in a confirmed transfer, with an inflow that would otherwise fit.
    const fits = await transaction(accounts.savings!, '2024-04-02', -500, 'Would fit');
    expect((await link(ids.toBrokerage!, fits)).errors).toEqual([
      { message: TAKEN, path: '/body/transfer/outflow_transaction_id' },
    ]);
    await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: fits } });
  });

  it('links across currencies, converting the outflow at the rate of its date', async () => {
    const out = await transaction(accounts.checking!, '2024-01-05', 100, 'Wire to the euro account');
    const into = await transaction(accounts.euro!, '2024-01-06', -92.6, 'Wire from checking', 'EUR');
    // 100 USD at 1 / 1.08 = 92.5926 EUR, 0.0074 from 92.60: well within 1%.
    const linked = await created({ outflow_transaction_id: out, inflow_transaction_id: into });
    expect([linked.amount, linked.inflow_transaction.amount]).toEqual(['$100.00', '-€92.60']);
  });

  it('of 24 concurrent links of one transaction, exactly one succeeds', async () => {
    const outflow = await transaction(accounts.checking!, '2024-08-01', 1000, 'Big move');
    const inflows: string[] = [];
    for (let n = 0; n < 24; n++) {
      inflows.push(await transaction(n % 2 ? accounts.savings! : accounts.brokerage!, '2024-08-01', -1000, `In ${n}`));
    }
    const answers = await Promise.all(
      inflows.map((inflow) => post({ outflow_transaction_id: outflow, inflow_transaction_id: inflow })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, ...Array(23).fill(422)]);
    for (const answer of answers.filter((each) => each.status === 422)) {
      expect(answer.body).toEqual({
        error: 'validation_failed',
        message: TAKEN,
        errors: [{ message: TAKEN, path: '/body/transfer/outflow_transaction_id' }],
      });
    }
    const [row] = await server.query(`select count(*)::int as n from transfers where outflow_entry_id = $1`, [outflow]);
    expect(row).toEqual({ n: 1 });
  });
});

describe('suggestions', () => {
  it('pairs opposite transactions of two accounts after the sync; confirm makes them a transfer', async () => {
    const out = await transaction(accounts.checking!, '2024-06-10', 300, 'Move to savings');
    const into = await transaction(accounts.savings!, '2024-06-12', -300, 'From checking');
    expect(await suggestedPairs()).toEqual([]); // nothing before the jobs run
    await server.drainJobs();
    const [suggestion, ...more] = await listTransfers({ status: 'suggested' });
    expect(more).toEqual([]);
    expect([suggestion.status, suggestion.kind, suggestion.outflow_transaction.id, suggestion.inflow_transaction.id])
      .toEqual(['suggested', 'funds_movement', out, into]); // prettier-ignore
    // A suggestion counts for nothing yet.
    expect([(await getTransaction(out)).classification, (await getTransaction(out)).transfer]).toEqual([
      'expense',
      null,
    ]);
    const confirmed = await server.api.call('confirmTransfer', {
      key: household.writeKey,
      params: { id: suggestion.id },
    });
    expect([confirmed.status, confirmed.body.data.status]).toEqual([200, 'confirmed']);
    expect((await getTransaction(out)).classification).toBe('transfer');
    expect((await getTransaction(into)).transfer.id).toBe(suggestion.id);
    expect(await suggestedPairs()).toEqual([]);
  });

  it('rejects a suggestion and never suggests the pair again', async () => {
    const out = await transaction(accounts.checking!, '2024-07-01', 80, 'Looks like a transfer');
    const into = await transaction(accounts.savings!, '2024-07-01', -80, 'But is not');
    await server.drainJobs();
    const [suggestion] = await listTransfers({ status: 'suggested' });
    expect([suggestion.outflow_transaction.id, suggestion.inflow_transaction.id]).toEqual([out, into]);
    const rejected = await server.api.call('rejectTransfer', {
      key: household.writeKey,
      params: { id: suggestion.id },
    });
    expect([rejected.status, rejected.body]).toEqual([200, { data: { id: suggestion.id, deleted: true } }]);
    expect((await server.api.call('getTransfer', { key: household.readKey, params: { id: suggestion.id } })).status)
      .toBe(404); // prettier-ignore
    await transaction(accounts.checking!, '2024-07-03', 2.5, 'Another write, another sync');
    await server.drainJobs();
    expect(await suggestedPairs()).toEqual([]);
    expect((await getTransaction(out)).classification).toBe('expense');

    const confirmedOne = await server.api.call('rejectTransfer', {
      key: household.writeKey,
      params: { id: ids.cardPayment! },
    });
    expect([confirmedOne.status, confirmedOne.body.errors[0].path]).toEqual([422, '/path/id']);
  });
});

describe('reading and unlinking', () => {
  it('lists by account, dates and status, newest first, and only the family’s own', async () => {
    const card = await listTransfers({ account_id: accounts.card! });
    expect(card.map((transfer) => transfer.id)).toEqual([ids.cardPayment]);
    const march = await listTransfers({ start_date: '2024-03-01', end_date: '2024-03-31', status: 'confirmed' });
    expect(march.map((transfer) => transfer.id)).toEqual([ids.cardPayment, ids.savingsTransfer]);
    const response = await server.api.call('listTransfers', { key: household.readKey, query: { per_page: 2 } });
    expect(response.body.meta).toMatchObject({ total_count: 8, total_pages: 4, next_page: 2 });
    expect(await listTransfers({}, other.readKey)).toEqual([]);
    const theirs = await server.api.call('getTransfer', { key: other.readKey, params: { id: ids.cardPayment! } });
    expect(theirs.status).toBe(404);
  });

  it('unlinks: both transactions stay as ordinary ones, and the pair is not suggested again', async () => {
    const response = await server.api.call('deleteTransfer', {
      key: household.writeKey,
      params: { id: ids.savingsTransfer! },
    });
    expect([response.status, response.body]).toEqual([200, { data: { id: ids.savingsTransfer, deleted: true } }]);
    const outflow = await getTransaction(ids.savingsOutflow!);
    const inflow = await getTransaction(ids.savingsInflow!);
    expect([outflow.classification, outflow.transfer, inflow.classification, inflow.transfer]).toEqual([
      'expense',
      null,
      'income',
      null,
    ]);
    await transaction(accounts.checking!, '2024-03-02', 1.5, 'A write after the unlink');
    await server.drainJobs();
    expect(await suggestedPairs()).toEqual([]);
    const again = await server.api.call('deleteTransfer', {
      key: household.writeKey,
      params: { id: ids.savingsTransfer! },
    });
    expect(again.status).toBe(404);
  });

  it('unlinks a transfer when either of its transactions is deleted', async () => {
    const response = await server.api.call('deleteTransaction', {
      key: household.writeKey,
      params: { id: ids.deposit! },
    });
    expect(response.status).toBe(200);
    expect((await server.api.call('getTransfer', { key: household.readKey, params: { id: ids.link! } })).status).toBe(
      404,
    );
    const outflow = await getTransaction(ids.toBrokerage!);
    expect([outflow.classification, outflow.transfer]).toEqual(['expense', null]);
  });
});

describe('concurrent transfers between two accounts', () => {
  it('queue on the account locks taken in one order: both directions at once all succeed and add up', async () => {
    const a = await account(household.writeKey, 'Joint A', 'depository', 1000);
    const b = await account(household.writeKey, 'Joint B', 'depository', 1000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        n % 2
          ? post({ from_account_id: a, to_account_id: b, amount: 10, date: '2024-09-01' })
          : post({ from_account_id: b, to_account_id: a, amount: 5, date: '2024-09-01' }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    await server.drainJobs();
    expect(await balanceCents(a)).toBe(95_000); // 1,000 - 10 x 10 + 10 x 5
    expect(await balanceCents(b)).toBe(105_000);
  });
});

describe('the balance sheet', () => {
  it("leaves transfers out of the period's income and expenses", async () => {
    const [{ today }] = (await server.query<{ today: string }>(
      "select to_char(current_date, 'YYYY-MM-DD') as today",
    )) as [{ today: string }];
    await created({ from_account_id: accounts.checking, to_account_id: accounts.savings, amount: 40, date: today });
    await transaction(accounts.checking!, today, 7.25, 'Lunch');
    await server.drainJobs();
    const sheet = await server.api.call('getBalanceSheet', { key: household.readKey, query: { period: '1M' } });
    // Only the lunch: the 40 moved from checking to savings is neither.
    expect(sheet.body.data.flows).toMatchObject({ income_cents: 0, expenses_cents: 725, complete: true });
  });
});

describe('daily balances', () => {
  it('count a transaction as income or expense until it joins a transfer, and again once unlinked', async () => {
    const out = await transaction(accounts.checking!, '2024-10-01', 60, 'Moved');
    const into = await transaction(accounts.savings!, '2024-10-01', -60, 'Arrived');
    /** [expenses, income, outflows, inflows] of the day, in cents. */
    const day = async (account: string) => {
      const response = await server.api.call('listBalances', {
        key: household.readKey,
        query: { account_id: account, start_date: '2024-10-01', end_date: '2024-10-01' },
      });
      const [row] = response.body.data;
      return [row.expenses_cents, row.income_cents, row.outflows_cents, row.inflows_cents];
    };
    await server.drainJobs();
    expect([await day(accounts.checking!), await day(accounts.savings!)]).toEqual([
      [6000, 0, 6000, 0],
      [0, 6000, 0, 6000],
    ]);

    const [suggestion] = await listTransfers({ status: 'suggested' });
    expect(suggestion.outflow_transaction.id).toBe(out);
    await server.api.call('confirmTransfer', { key: household.writeKey, params: { id: suggestion.id } });
    await server.drainJobs();
    // Still money out of checking and into savings, but neither expense nor income.
    expect([await day(accounts.checking!), await day(accounts.savings!)]).toEqual([
      [0, 0, 6000, 0],
      [0, 0, 0, 6000],
    ]);

    await server.api.call('deleteTransfer', { key: household.writeKey, params: { id: suggestion.id } });
    await server.drainJobs();
    expect(await day(accounts.checking!)).toEqual([6000, 0, 6000, 0]);

    await created({ outflow_transaction_id: out, inflow_transaction_id: into });
    await server.drainJobs();
    expect(await day(accounts.savings!)).toEqual([0, 0, 0, 6000]);

    // Deleting one side unlinks it: the other is an expense again in its own account's day.
    await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: into } });
    await server.drainJobs();
    expect(await day(accounts.checking!)).toEqual([6000, 0, 6000, 0]);
  });
});
