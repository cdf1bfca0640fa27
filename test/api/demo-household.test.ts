import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../server/api-keys/api-key.service.ts';
import { createDemoHousehold } from '../../server/demo/demo-household.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** The household `npm start` shows a new user: its numbers must add up like a real one's. */
let server: TestServer;
let key: string;
const accounts = new Map<string, any>();

beforeAll(async () => {
  server = await startTestServer();
  const em = server.em();
  const { user } = await createDemoHousehold(em);
  ({ key } = await issueApiKey(em, { user, scope: 'read' }));
  await server.drainJobs();
  const listed = await server.api.call('listAccounts', { key, query: { per_page: 100 } });
  for (const account of listed.body.data) accounts.set(account.name, account);
});
afterAll(() => server?.close());

const transactions = async (query: Record<string, unknown>) => {
  const found: any[] = [];
  for (let page = 1; ; page++) {
    const { body } = await server.api.call('listTransactions', { key, query: { per_page: 100, page, ...query } });
    found.push(...body.data);
    if (!body.meta.next_page) return found;
  }
};

describe('the demo household', () => {
  it('moves money to savings and pays the card in full each month as transfers, not income or expense', async () => {
    const transfers = await transactions({ type: 'transfer', account_id: accounts.get('Everyday Checking').id });
    const names = new Set(transfers.map((t) => t.name));
    expect(names).toEqual(new Set(['Transfer to High-Yield Savings', 'Payment to Rewards Visa']));
    expect(transfers.every((t) => t.classification === 'transfer')).toBe(true);
    expect(transfers.filter((t) => t.name === 'Transfer to High-Yield Savings').length).toBeGreaterThanOrEqual(11);
    const income = await transactions({ type: 'income', account_id: accounts.get('High-Yield Savings').id });
    expect(income).toEqual([]);
    // Paid in full: what the card owes is at most this month's and last month's spending.
    const card = accounts.get('Rewards Visa');
    expect(card.classification).toBe('liability');
    expect(card.balance_cents).toBeGreaterThan(0);
    expect(card.balance_cents).toBeLessThan(400000);
  });

  it('buys coffee at $3-7 and pays rent and salary at believable amounts', async () => {
    const coffee = await transactions({ search: 'Coffee', account_id: accounts.get('Rewards Visa').id });
    const cups = coffee.filter((t) => t.name === 'Coffee');
    expect(cups.length).toBeGreaterThan(100);
    expect(cups.every((t) => t.amount_cents >= 300 && t.amount_cents <= 700)).toBe(true);
    const salary = await transactions({ type: 'income', account_id: accounts.get('Everyday Checking').id });
    expect(salary.length).toBeGreaterThanOrEqual(24);
    expect(salary.every((t) => t.amount_cents === 312500)).toBe(true);
  });

  it('values the brokerage with its holdings at recent prices, converts the euro account, and adds up', async () => {
    const brokerage = accounts.get('Brokerage');
    expect(brokerage.holdings_value_cents).toBeGreaterThan(0);
    expect(brokerage.balance_cents).toBe(brokerage.cash_balance_cents + brokerage.holdings_value_cents);
    const euro = accounts.get('Euro Account');
    expect(euro).toMatchObject({ currency: 'EUR', balance_complete: true });
    const sheet = (await server.api.call('getBalanceSheet', { key, query: { period: '1Y' } })).body.data;
    expect(sheet).toMatchObject({ currency: 'USD', complete: true, missing_exchange_rates: [] });
    const counted = sheet.groups.flatMap((group: any) => group.accounts);
    expect(counted.map((a: any) => a.name).sort()).toEqual([...accounts.keys()].sort());
    const euroRow = counted.find((a: any) => a.name === 'Euro Account');
    expect(Number(euroRow.exchange_rate)).toBeGreaterThan(1);
    expect(sheet.assets_cents - sheet.liabilities_cents).toBe(sheet.net_worth_cents);
    expect(sheet.series.at(-1)).toMatchObject({ net_worth: sheet.net_worth_cents, complete: true });
    // A year of salary (25 or 26 paydays) is the period's income: transfers are not.
    expect(sheet.flows.income_cents % 312500).toBe(0);
  });
});
