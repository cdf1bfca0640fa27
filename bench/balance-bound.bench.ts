/**
 * Part of `npm run bench:balances`: what the balance bound (migration 20261130040000) costs the
 * writes that pay it, measured against the same writes with its triggers disabled, in one run on a
 * database of its own. A checking account with 20,000 transactions and an investment account with
 * 10,000 trades in 20 securities (monthly prices); rounds alternate between the bound on and off.
 * Writes bench/results/balance-bound.json and prints a Markdown table. See bench/README.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { createAccount } from '../server/accounts/account.service.ts';
import { openOrm } from '../server/db/orm.ts';
import { createTrade } from '../server/trades/trade.service.ts';
import { createTransaction } from '../server/transactions/transaction.service.ts';
import { insertTransactions } from '../server/transactions/transaction.bulk-insert.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { createBenchDatabase } from './database.ts';
import { machineInfo } from './machine.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_BOUND_RESULTS ?? path.join(ROOT, 'bench', 'results', 'balance-bound.json');
const HISTORY = 20_000;
const TRADES = 10_000;
const SECURITIES = 20;
const ROUNDS = 6;
const CREATES = 250;
/** Trades recompute the holdings' part of the reach: fewer of them. */
const TRADE_CREATES = 50;
const CHUNK = 10_000;

/** The triggers of the bound on entries and trades (prices and rates are not measured here). */
const TRIGGERS = [
  'entries.entries_within_bound_on_insert',
  'entries.entries_within_bound_on_update',
  'entries.entries_within_bound_on_delete',
  'trades.trades_within_bound_on_insert',
  'trades.trades_within_bound_on_update',
];

const log = (message: string) => process.stdout.write(`[bench-bound] ${message}\n`);
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const database = await createBenchDatabase(pino({ level: 'warn' }));
  const orm = await openOrm(database.url, 2);
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const run = (text: string, params: unknown[] = []) => pool.query(text, params);
  try {
    const em = orm.em.fork();
    const { family } = await createUserWithFamily(em, {
      email: 'bound-bench@example.test',
      password: 'correct horse battery',
      familyName: 'Bound bench',
    });
    const checking = await createAccount(em, family.id, { name: 'Checking', account_type: 'depository' });
    const brokerage = await createAccount(em, family.id, { name: 'Brokerage', account_type: 'investment' });
    for (let from = 0; from < HISTORY; from += 5_000) {
      await insertTransactions(
        em,
        Array.from({ length: 5_000 }, (_, i) => ({
          familyId: family.id,
          accountId: checking,
          currency: 'USD',
          amount: ((((from + i) * 7919) % 250_000) / 100 + 1).toFixed(2),
          date: new Date(Date.UTC(2023, 0, 1) + ((from + i) % 1000) * 86_400_000).toISOString().slice(0, 10),
          name: `History ${from + i}`,
        })),
      );
    }
    await seedTrades(run, family.id, brokerage);
    await run('vacuum analyze');
    log(`seeded ${HISTORY} transactions and ${TRADES} trades`);

    const bound = async (on: boolean) => {
      for (const trigger of TRIGGERS) {
        const [table, name] = trigger.split('.');
        await run(`alter table ${table} ${on ? 'enable' : 'disable'} trigger ${name}`);
      }
    };
    const creates = async (accountId: string) => {
      const started = performance.now();
      for (let i = 0; i < CREATES; i++) {
        await createTransaction(orm.em.fork(), family.id, {
          account_id: accountId,
          date: '2025-06-01',
          amount: 12.34,
          name: 'Bench create',
          nature: 'expense',
        });
      }
      return (performance.now() - started) / CREATES;
    };
    const trades = async () => {
      const started = performance.now();
      for (let i = 0; i < TRADE_CREATES; i++) {
        await createTrade(orm.em.fork(), family.id, {
          account_id: brokerage,
          date: '2025-06-01',
          type: 'buy',
          qty: 1,
          price: 100,
          ticker: 'BOUND0',
        });
      }
      return (performance.now() - started) / TRADE_CREATES;
    };
    // One import chunk: 10,000 transactions in one statement, rolled back.
    const chunk = async () => {
      const started = performance.now();
      await em
        .transactional(async (tx) => {
          await insertTransactions(
            tx,
            Array.from({ length: CHUNK }, (_, i) => ({
              familyId: family.id,
              accountId: checking,
              currency: 'USD',
              amount: '9.99',
              date: '2025-06-02',
              name: `Chunk ${i}`,
            })),
          );
          throw new RollBack();
        })
        .catch((error: unknown) => {
          if (!(error instanceof RollBack)) throw error;
        });
      return performance.now() - started;
    };

    const measured = { on: { checking: [] as number[], brokerage: [] as number[], trade: [] as number[], chunk: [] as number[] }, off: { checking: [] as number[], brokerage: [] as number[], trade: [] as number[], chunk: [] as number[] } }; // prettier-ignore
    for (let r = 0; r < ROUNDS; r++) {
      for (const on of r % 2 === 0 ? [true, false] : [false, true]) {
        await bound(on);
        const side = on ? measured.on : measured.off;
        side.checking.push(await creates(checking));
        side.brokerage.push(await creates(brokerage));
        side.trade.push(await trades());
        side.chunk.push(await chunk());
        log(`round ${r + 1}, bound ${on ? 'on' : 'off'}: create ${round(side.checking.at(-1)!)} / ${round(side.brokerage.at(-1)!)} ms, trade ${round(side.trade.at(-1)!)} ms, chunk ${round(side.chunk.at(-1)!, 0)} ms`); // prettier-ignore
      }
    }
    await bound(true);

    const rows = [
      ['create a transaction (service, no HTTP): checking with 20,000 transactions, ms', 'checking'],
      ['create a transaction (service, no HTTP): brokerage with 10,000 trades, ms', 'brokerage'],
      ['create a trade (service, no HTTP): brokerage with 10,000 trades, ms', 'trade'],
      ['import chunk: 10,000 transactions in one statement, ms', 'chunk'],
    ] as const;
    const results = {
      machine: machineInfo(),
      data: { transactions: HISTORY, trades: TRADES, securities: SECURITIES, rounds: ROUNDS, creates: CREATES },
      medians: Object.fromEntries(
        rows.map(([, key]) => [key, { on: round(median(measured.on[key])), off: round(median(measured.off[key])) }]),
      ),
      runs: measured,
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n');
    console.log(`
| write (median of ${ROUNDS} rounds) | bound off | bound on | cost |
|---|---:|---:|---:|
${rows
  .map(([label, key]) => {
    const { on, off } = results.medians[key]!;
    return `| ${label} | ${off} | ${on} | ${round(on - off)} (${Math.round(((on - off) / off) * 100)}%) |`;
  })
  .join('\n')}

Written to ${path.relative(process.cwd(), RESULTS)}`);
  } finally {
    await pool.end();
    await orm.close();
    await database.close();
  }
}

class RollBack extends Error {}

/** 20 securities, 10,000 trades over 5 years (every fourth a smaller sale), monthly prices. */
async function seedTrades(
  run: (text: string, params?: unknown[]) => Promise<unknown>,
  familyId: string,
  accountId: string,
) {
  const securities = Array.from({ length: SECURITIES }, (_, i) => ({ id: randomUUID(), ticker: `BOUND${i}` }));
  await run(
    `insert into securities (id, family_id, ticker, kind, created_at, updated_at)
      select id, $1, ticker, 'standard', now(), now() from unnest($2::uuid[], $3::text[]) as s(id, ticker)`,
    [familyId, securities.map((s) => s.id), securities.map((s) => s.ticker)],
  );
  const trades = Array.from({ length: TRADES }, (_, i) => ({
    tradeId: randomUUID(),
    entryId: randomUUID(),
    securityId: securities[i % SECURITIES]!.id,
    date: new Date(Date.UTC(2021, 0, 1) + Math.floor((i / TRADES) * 5 * 365) * 86_400_000).toISOString().slice(0, 10),
    qty: i % 4 === 3 ? -1 : 3,
    price: (50 + (i % 100) + i / 100).toFixed(2),
  }));
  await run(
    `insert into trades (id, security_id, qty, price, fee, currency, investment_activity_label, created_at, updated_at)
      select id, security_id, qty, price, 0, 'USD', case when qty < 0 then 'Sell' else 'Buy' end, now(), now()
        from unnest($1::uuid[], $2::uuid[], $3::numeric[], $4::numeric[]) as t(id, security_id, qty, price)`,
    [trades.map((t) => t.tradeId), trades.map((t) => t.securityId), trades.map((t) => t.qty), trades.map((t) => t.price)], // prettier-ignore
  );
  await run(
    `insert into entries (id, family_id, account_id, entryable_type, entryable_id, amount, currency, date, name)
      select e.id, $1, $2, 'Trade', e.trade_id, e.qty * e.price, 'USD', e.date, 'Bench trade'
        from unnest($3::uuid[], $4::uuid[], $5::numeric[], $6::numeric[], $7::date[]) as e(id, trade_id, qty, price, date)`,
    [familyId, accountId, trades.map((t) => t.entryId), trades.map((t) => t.tradeId), trades.map((t) => t.qty), trades.map((t) => t.price), trades.map((t) => t.date)], // prettier-ignore
  );
  await run(
    `insert into security_prices (security_id, date, price, currency, family_id)
      select s.id, d::date, 60 + s.n, 'USD', $1
        from (select id, row_number() over (order by ticker) as n from securities where family_id = $2) s,
             generate_series(date '2021-01-01', date '2025-12-01', interval '1 month') d`,
    [familyId, familyId],
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
