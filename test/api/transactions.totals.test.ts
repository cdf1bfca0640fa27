import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDecimal } from '../../server/core/money/money.ts';
import { insertTransactions } from '../../server/transactions/transaction.bulk-insert.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';
import { createFixtures, createTransaction, type Fixtures } from '../support/transactions-fixtures.ts';

/**
 * Totals of lists filtered by account at most come from counts kept by triggers; they must
 * always equal a real count, whichever way rows were written or removed.
 */
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let fx: Fixtures;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  fx = await createFixtures(server, household.writeKey);
  await createFixtures(server, other.writeKey);
});
afterAll(() => server?.close());

async function totals(query: Record<string, string | string[]> = {}) {
  const response = await server.api.call('listTransactions', {
    key: household.readKey,
    query: { per_page: 1, ...query },
  });
  return response.body.meta.total_count as number;
}

async function realCount(accountIds?: string[]) {
  const [row] = await server.query<{ n: number }>(
    `select count(*)::int as n from entries where family_id = $1 and entryable_type = 'Transaction' and ($2::uuid[] is null or account_id = any($2))`,
    [household.familyId, accountIds ?? null],
  );
  return row!.n;
}

async function expectTotalsToMatch() {
  const { checking, savings, card } = fx.accounts;
  expect(await totals()).toBe(await realCount());
  expect(await totals({ account_id: checking.id })).toBe(await realCount([checking.id]));
  expect(await totals({ account_ids: [savings.id, card.id] })).toBe(await realCount([savings.id, card.id]));
  // account_id and account_ids together must both hold.
  expect(await totals({ account_id: checking.id, account_ids: [savings.id] })).toBe(0);
}

describe('list totals', () => {
  it('match a real count after API writes and deletes', async () => {
    const made = [];
    for (const [index, account] of [
      fx.accounts.checking,
      fx.accounts.checking,
      fx.accounts.savings,
      fx.accounts.card,
    ].entries()) {
      made.push(
        await createTransaction(server, household.writeKey, {
          account_id: account.id,
          date: `2026-03-0${index + 1}`,
          amount: 5,
          name: `T${index}`,
        }),
      );
    }
    await expectTotalsToMatch();
    expect(await totals()).toBe(4);
    await server.api.call('deleteTransaction', { key: household.writeKey, params: { id: made[0]!.id } });
    await server.api.call('updateTransaction', {
      key: household.writeKey,
      params: { id: made[1]!.id },
      body: { transaction: { name: 'Renamed', amount: 7 } },
    });
    await expectTotalsToMatch();
    expect(await totals()).toBe(3);
  });

  it('match a real count after a bulk insert and a direct delete', async () => {
    const rows = Array.from({ length: 250 }, (_, index) => ({
      familyId: household.familyId,
      accountId: [fx.accounts.checking.id, fx.accounts.savings.id][index % 2]!,
      date: '2026-04-01',
      amount: toDecimal(index + 1),
      currency: 'USD',
      name: `Bulk ${index}`,
    }));
    await insertTransactions(server.em(), rows);
    await expectTotalsToMatch();
    await server.query(`delete from entries where name like 'Bulk 1%'`);
    await expectTotalsToMatch();
    expect(await totals()).toBe(3 + 250 - 111);
  });

  it('are counted per family', async () => {
    const response = await server.api.call('listTransactions', { key: other.readKey });
    expect(response.body.meta.total_count).toBe(0);
  });

  describe('once another filter applies', () => {
    const search = 'Bulk 2';
    async function meta(query: Record<string, string>) {
      const response = await server.api.call('listTransactions', {
        key: household.readKey,
        query: { search, ...query },
      });
      return response.body.meta;
    }
    async function matching() {
      const [row] = await server.query<{ n: number }>(
        `select count(*)::int as n from entries where family_id = $1 and name ilike $2`,
        [household.familyId, `%${search}%`],
      );
      return row!.n;
    }

    it('count the matching rows exactly when they fit in ten pages', async () => {
      const real = await matching();
      expect(real).toBeGreaterThan(10);
      expect(await meta({ per_page: '100' })).toMatchObject({ total_count: real, total_count_exact: true });
    });

    it('stop counting ten pages from the page asked for, and say so', async () => {
      expect(await meta({ per_page: '1' })).toMatchObject({
        total_count: 10,
        total_count_exact: false,
        total_pages: 10,
        next_page: 2,
      });
      expect(await meta({ per_page: '1', page: '5' })).toMatchObject({
        total_count: 14,
        total_count_exact: false,
        total_pages: 14,
        next_page: 6,
        prev_page: 4,
      });
    });

    it('are exact again once the last match is within ten pages', async () => {
      const real = await matching();
      const page = real - 3;
      expect(await meta({ per_page: '1', page: String(page) })).toMatchObject({
        total_count: real,
        total_count_exact: true,
        total_pages: real,
        next_page: page + 1,
      });
    });
  });
});
