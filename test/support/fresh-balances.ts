import { expect } from 'vitest';
import { queueAccountSync } from '../../server/accounts/account-sync.ts';
import type { TestServer } from './test-server.ts';

const ROW = `account_id, to_char(date, 'YYYY-MM-DD') as date, currency, balance::text, cash_balance::text,
  holdings_value::text, inflows::text, outflows::text, complete, missing_exchange_rates, carried_missing_rates`;

type Query = (text: string) => Promise<unknown[]>;

/** Every stored daily balance and every account's figures, in a stable order. */
export async function readBalances(query: Query) {
  return {
    rows: await query(`select ${ROW} from balances order by account_id, date`),
    accounts: await query(`select id, balance::text, cash_balance::text, holdings_value::text, balance_complete,
      missing_exchange_rates from accounts order by id`),
  };
}

/**
 * Every stored daily balance (and every account's figures) equals a recomputation from scratch:
 * what the incremental syncs left after concurrent writes is what a full sync writes.
 */
export async function expectBalancesFresh(server: TestServer): Promise<void> {
  await server.drainJobs();
  const read = () => readBalances((text) => server.query(text));
  const incremental = await read();
  expect(incremental.rows.length).toBeGreaterThan(0);
  await server.query(`update accounts set balances_stale_from = '-infinity'`);
  const em = server.em();
  for (const { id } of await server.query<{ id: string }>('select id from accounts')) await queueAccountSync(em, id);
  await server.drainJobs();
  expect(incremental).toEqual(await read());
}
