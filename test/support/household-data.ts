import { expect } from 'vitest';
import { createHousehold, type TestHousehold } from './households.ts';
import type { TestServer } from './test-server.ts';

/** The ids of what fillHousehold wrote. */
export interface HouseholdData {
  checking: string;
  savings: string;
  brokerage: string;
  category: string;
  subcategory: string;
  merchant: string;
  tag: string;
  transactions: string[];
  valuation: string;
  trade: string;
  transfer: string;
}

/** One call that must answer `status`; its `data`. */
async function made(server: TestServer, status: number, ...args: Parameters<TestServer['api']['call']>) {
  const response = await server.api.call(...args);
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body.data as { id: string };
}

/**
 * A household with a little of everything a family holds, written through the API: accounts,
 * categories (one nested), a merchant, a tag, transactions using them, a confirmed transfer, a
 * valuation, a trade, an exchange rate.
 */
export async function fillHousehold(server: TestServer, household: TestHousehold): Promise<HouseholdData> {
  const key = household.writeKey;
  const account = (name: string, account_type: string) =>
    made(server, 201, 'createAccount', { key, body: { account: { name, account_type, balance: 1000 } } });
  const checking = (await account('Checking', 'depository')).id;
  const savings = (await account('Savings', 'depository')).id;
  const brokerage = (await account('Brokerage', 'investment')).id;
  const category = (await made(server, 201, 'createCategory', { key, body: { category: { name: 'Food' } } })).id;
  const subcategory = (
    await made(server, 201, 'createCategory', { key, body: { category: { name: 'Groceries', parent_id: category } } })
  ).id;
  const merchant = (await made(server, 201, 'createMerchant', { key, body: { merchant: { name: 'Corner Shop' } } })).id;
  const tag = (await made(server, 201, 'createTag', { key, body: { tag: { name: 'Weekly' } } })).id;
  const transactions: string[] = [];
  for (const [day, category_id] of [
    ['2024-03-01', category],
    ['2024-03-02', subcategory],
    ['2024-03-03', null],
  ] as const) {
    const transaction = {
      account_id: checking,
      date: day,
      amount: 12.5,
      name: `Shopping ${day}`,
      nature: 'expense',
      category_id,
      merchant_id: merchant,
      tag_ids: [tag],
    };
    transactions.push((await made(server, 201, 'createTransaction', { key, body: { transaction } })).id);
  }
  const transfer = (
    await made(server, 201, 'createTransfer', {
      key,
      body: { transfer: { from_account_id: checking, to_account_id: savings, amount: 100, date: '2024-03-04' } },
    })
  ).id;
  const valuation = (
    await made(server, 201, 'createValuation', {
      key,
      body: { valuation: { account_id: savings, amount: 5000, date: '2024-03-10' } },
    })
  ).id;
  const trade = (
    await made(server, 201, 'createTrade', {
      key,
      body: { trade: { account_id: brokerage, date: '2024-03-05', type: 'buy', qty: 2, price: 100, ticker: 'FAMX' } },
    })
  ).id;
  await made(server, 200, 'createExchangeRates', {
    key,
    body: { exchange_rates: [{ from: 'EUR', to: 'USD', date: '2024-03-01', rate: 1.1 }] },
  });
  return {
    checking,
    savings,
    brokerage,
    category,
    subcategory,
    merchant,
    tag,
    transactions,
    valuation,
    trade,
    transfer,
  };
}

/** A new household of its own with fillHousehold's records. */
export async function filledHousehold(server: TestServer): Promise<{ household: TestHousehold; data: HouseholdData }> {
  const household = await createHousehold(server);
  return { household, data: await fillHousehold(server, household) };
}

/**
 * How many rows of each kind the family holds, the details of its entries and the credentials,
 * devices and chats of its users included: all zero once the family is gone.
 */
export async function familyRowCounts(server: TestServer, familyId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const count = async (name: string, text: string) => {
    const [row] = await server.query<{ n: string }>(text, [familyId]);
    counts[name] = Number(row!.n);
  };
  for (const table of [
    'families',
    'users',
    'accounts',
    'categories',
    'merchants',
    'tags',
    'securities',
    'entries',
    'transfers',
    'transfer_rejections',
    'imports',
    'rules',
    'exchange_rates',
    'security_prices',
  ]) {
    await count(table, `select count(*) as n from ${table} where ${table === 'families' ? 'id' : 'family_id'} = $1`);
  }
  for (const table of ['api_keys', 'devices', 'oauth_tokens', 'sso_identities', 'chats']) {
    await count(table, `select count(*) as n from ${table} t join users u on u.id = t.user_id where u.family_id = $1`);
  }
  for (const table of ['balances', 'holdings']) {
    await count(
      table,
      `select count(*) as n from ${table} t join accounts a on a.id = t.account_id where a.family_id = $1`,
    );
  }
  // Details whose entry is gone would belong to nobody: there must be none in the whole database.
  for (const table of ['transactions', 'valuations', 'trades']) {
    await count(
      `orphan ${table}`,
      `select count(*) as n from ${table} d where $1::uuid is not null
         and not exists (select 1 from entries e where e.entryable_id = d.id)`,
    );
  }
  return counts;
}
