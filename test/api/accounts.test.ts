import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds({ currency: 'EUR' }));
});
afterAll(() => server?.close());

describe('createAccount', () => {
  it('opens an account in the family currency with a formatted opening balance', async () => {
    const response = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Joint Checking', account_type: 'depository', subtype: 'checking', balance: 1234.5 } },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'Joint Checking',
      account_type: 'depository',
      subtype: 'checking',
      classification: 'asset',
      currency: 'USD',
      balance: '$1,234.50',
      balance_cents: 123450,
      status: 'active',
    });
  });

  it('classifies credit cards and loans as liabilities', async () => {
    const response = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Mortgage', account_type: 'loan' } },
    });
    expect(response.body.data).toMatchObject({ classification: 'liability', balance: '$0.00', balance_cents: 0 });
  });

  it('names each missing field and leaves the table unchanged', async () => {
    const before = await server.query('select count(*)::int as n from accounts');
    const response = await server.api.call('createAccount', { key: household.writeKey, body: { account: {} } });
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('validation_failed');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: '/body/account/name', message: 'name is required' },
        { path: '/body/account/account_type', message: 'account_type is required' },
      ]),
    );
    expect(await server.query('select count(*)::int as n from accounts')).toEqual(before);
  });

  it('refuses an unknown account type and a read key', async () => {
    const bad = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'X', account_type: 'piggy_bank' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe('/body/account/account_type');
    const readOnly = await server.api.call('createAccount', {
      key: household.readKey,
      body: { account: { name: 'X', account_type: 'depository' } },
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toMatchObject({
      error: 'insufficient_scope',
      message: "This action requires the 'read_write' scope",
    });
  });
});

describe('listAccounts and getAccount', () => {
  it('lists only the family accounts, and another family id is 404', async () => {
    const mine = await server.api.call('listAccounts', { key: household.readKey });
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((a: { name: string }) => a.name)).toEqual(['Joint Checking', 'Mortgage']);
    expect(mine.body.meta).toEqual({
      current_page: 1,
      per_page: 25,
      total_count: 2,
      total_count_exact: true,
      total_pages: 1,
      next_page: null,
      prev_page: null,
    });
    const id = mine.body.data[0].id;
    expect((await server.api.call('getAccount', { key: household.readKey, params: { id } })).status).toBe(200);
    const foreign = await server.api.call('getAccount', { key: other.readKey, params: { id } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
    const malformed = await server.api.call('getAccount', { key: household.readKey, params: { id: 'not-a-uuid' } });
    expect(malformed.status).toBe(404);
  });
});
