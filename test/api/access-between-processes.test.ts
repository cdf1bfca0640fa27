import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import type { CredentialRow } from '../../server/http/access-gate.ts';
import { CredentialCache } from '../../server/http/credential-cache.ts';
import { createHttpServer } from '../../server/http/http-server.ts';
import { ContractClient } from '../support/contract-client.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, TEST_JSON_LIMIT, type TestServer } from '../support/test-server.ts';

/**
 * Two API processes on one database, each keeping credentials between requests and reserving
 * rate-limit points in batches, as `npm start` runs them: a revocation or deactivation made
 * anywhere reaches both, and together they never admit more than a limit.
 */
const PER_CREDENTIAL = 40;

interface Process {
  api: ContractClient;
  credentials: CredentialCache<CredentialRow>;
  close(): Promise<void>;
}

let server: TestServer;
let household: TestHousehold;
const processes: Process[] = [];

async function startProcess(): Promise<Process> {
  const config = {
    ...loadConfig({}),
    jsonBodyLimit: TEST_JSON_LIMIT,
    rateLimitPerCredential: PER_CREDENTIAL,
    rateLimitPerAddress: 0,
  };
  const credentials = new CredentialCache<CredentialRow>(server.databaseUrl);
  await credentials.start();
  const app = await createApp({
    config,
    orm: server.orm,
    statements: server.statements,
    logger: pino({ level: 'silent' }),
    sealingKey: server.sealingKey,
    credentials,
  });
  const http: Server = createHttpServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  return {
    api: new ContractClient(`http://127.0.0.1:${(http.address() as AddressInfo).port}`),
    credentials,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await credentials.stop();
    },
  };
}

beforeAll(async () => {
  server = await startTestServer();
  processes.push(await startProcess(), await startProcess());
});
afterAll(async () => {
  for (const process of processes) await process.close();
  await server?.close();
});

beforeEach(async () => {
  household = await createHousehold(server);
});

const status = async (process: Process, key: string) => (await process.api.call('listTags', { key })).status;

describe('credentials kept between requests', () => {
  it('are refused by every process once the key is revoked', async () => {
    for (const process of processes) expect(await status(process, household.readKey)).toBe(200);
    await server.query(`update api_keys set revoked_at = now() where user_id = $1`, [household.userId]);
    for (const process of processes) {
      await expect.poll(() => status(process, household.readKey), { timeout: 5_000 }).toBe(401);
    }
  });

  it('are refused with the deactivation message once the user is deactivated', async () => {
    for (const process of processes) expect(await status(process, household.writeKey)).toBe(200);
    await server.query('update users set active = false where id = $1', [household.userId]);
    for (const process of processes) {
      await expect.poll(() => status(process, household.writeKey), { timeout: 5_000 }).toBe(401);
      const refused = await process.api.call('listTags', { key: household.writeKey });
      expect(refused.body.message).toBe('Account has been deactivated');
    }
  });

  it('are not kept when read before a change the process heard of', async () => {
    const cache = processes[0]!.credentials;
    const row = { user_id: household.userId } as CredentialRow;
    const before = cache.epoch;
    await server.query(`select pg_notify('credential_changed', $1)`, [household.userId]);
    await expect.poll(() => cache.epoch, { timeout: 5_000 }).not.toBe(before);
    // A lookup that started before the change must not be kept; one that started after is.
    cache.set('lookup:before', row, Date.now(), before);
    expect(cache.get('lookup:before', Date.now())).toBeUndefined();
    cache.set('lookup:after', row, Date.now(), cache.epoch);
    expect(cache.get('lookup:after', Date.now())).toBe(row);
  });

  it('are looked up again on every request while a process cannot hear of changes', async () => {
    const [first] = processes;
    expect(await status(first!, household.readKey)).toBe(200);
    await server.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen credential_changed'`,
    );
    await expect.poll(() => first!.credentials.listening, { timeout: 5_000 }).toBe(false);
    // A revocation that notifies nobody: only a lookup can see it.
    await server.query('alter table api_keys disable trigger api_keys_credential_update');
    try {
      await server.query(`update api_keys set revoked_at = now() where user_id = $1`, [household.userId]);
      expect(await status(first!, household.readKey)).toBe(401);
    } finally {
      await server.query('alter table api_keys enable trigger api_keys_credential_update');
    }
    // It listens again by itself.
    await expect.poll(() => first!.credentials.listening, { timeout: 5_000 }).toBe(true);
  });
});

describe('rate-limit points reserved in batches', () => {
  it('admit exactly the limit across two processes taking turns, then refuse', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PER_CREDENTIAL + 10; i++) statuses.push(await status(processes[i % 2]!, household.readKey));
    expect(statuses.filter((code) => code === 200)).toHaveLength(PER_CREDENTIAL);
    expect(statuses.slice(PER_CREDENTIAL)).toEqual(Array(10).fill(429));
  });

  it('never admit more than the limit under 60 concurrent requests to both processes', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => status(processes[i % 2]!, household.writeKey)),
    );
    expect(statuses.every((code) => code === 200 || code === 429)).toBe(true);
    const admitted = statuses.filter((code) => code === 200).length;
    expect(admitted).toBeLessThanOrEqual(PER_CREDENTIAL);
    // Points a process holds unspent (at most limit / 16 - 1, reservations on their way included)
    // may refuse the other's requests that early, never more.
    expect(admitted).toBeGreaterThanOrEqual(PER_CREDENTIAL - 2 * (Math.floor(PER_CREDENTIAL / 16) - 1));
  });

  it('count down the remaining requests one by one within a process', async () => {
    const [first] = processes;
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await first!.api.call('listTags', { key: household.readKey });
      remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([39, 38, 37, 36, 35]);
  });
});
