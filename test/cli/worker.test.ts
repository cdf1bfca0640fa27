import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
});
afterAll(() => server?.close());

/** Resolves when `check` holds (checked as the state changes, every 50 ms), or fails after `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm run worker', () => {
  it('runs the queued account sync on its own and stops cleanly on SIGTERM', async () => {
    const account = await server.api.call('createAccount', {
      key: household.writeKey,
      body: { account: { name: 'Checking', account_type: 'depository', balance: 100 } },
    });
    const id = account.body.data.id as string;
    await server.api.call('createTransaction', {
      key: household.writeKey,
      body: { transaction: { account_id: id, amount: 40, date: '2024-01-02', name: 'Groceries', nature: 'expense' } },
    });
    const pending = async () =>
      Number((await server.query<{ n: string }>('select count(*) as n from graphile_worker.jobs'))[0]!.n);
    expect(await pending()).toBe(1);

    const worker = spawn(process.execPath, ['--import', 'tsx', 'server/worker-main.ts'], {
      env: { ...process.env, DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'info', WORKER_POLL_INTERVAL_MS: '200' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    let output = '';
    worker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await until(async () => (await pending()) === 0, 30_000, 'the worker to run the sync');
      const shown = await server.api.call('getAccount', { key: household.readKey, params: { id } });
      expect(shown.body.data.balance_cents).toBe(6000);
      expect(output).toContain('worker running');
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
