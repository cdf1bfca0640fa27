import type { AddressInfo } from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { countOnePoint, giveOnePointBack, pruneRateLimits, type WindowCounter } from '../../server/core/rate-limit.ts';
import { sqlOn } from '../../server/core/sql.ts';
import { createHttpServer } from '../../server/http/http-server.ts';
import { ContractClient } from '../support/contract-client.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { until } from '../support/worker-process.ts';
import { BEHIND_A_PROXY, startTestServer, TEST_JSON_LIMIT, type TestServer } from '../support/test-server.ts';

describe('rate limits with the default settings', () => {
  let server: TestServer;
  let household: TestHousehold;
  beforeAll(async () => {
    server = await startTestServer();
    household = await createHousehold(server);
  });
  afterAll(() => server?.close());

  it('tells every authenticated response where the credential stands', async () => {
    const first = await server.api.call('listTags', { key: household.readKey });
    const second = await server.api.call('listTags', { key: household.readKey });
    expect(first.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(
      Number(first.headers.get('x-ratelimit-remaining')) - Number(second.headers.get('x-ratelimit-remaining')),
    ).toBe(1);
    const reset = Number(second.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(3600);
  });
});

describe('rate limits when spent', () => {
  let server: TestServer;
  let household: TestHousehold;
  beforeAll(async () => {
    server = await startTestServer({ rateLimitPerCredential: 3, rateLimitPerAddress: 8, rateLimitWindowSeconds: 600 });
    household = await createHousehold(server);
  });
  afterAll(() => server?.close());

  it('answers 429 in the error shape once a credential has used its requests', async () => {
    for (let i = 0; i < 3; i++)
      expect((await server.api.call('listTags', { key: household.readKey })).status).toBe(200);
    const refused = await server.api.call('listTags', { key: household.readKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: 'rate_limit_exceeded',
      message: expect.stringMatching(/^Rate limit exceeded\. Try again in \d+ seconds\.$/),
      details: { limit: 3, current: 4, reset_in_seconds: expect.any(Number) },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('counts credentials apart, and in PostgreSQL so that every process shares the count', async () => {
    // A second app process-equivalent on the same database: its requests spend the same counters.
    const config = {
      ...loadConfig({}),
      jsonBodyLimit: TEST_JSON_LIMIT,
      rateLimitPerCredential: 3,
      rateLimitPerAddress: 8,
      rateLimitWindowSeconds: 600,
    };
    const app = await createApp({
      config,
      orm: server.orm,
      statements: server.statements,
      logger: pino({ level: 'silent' }),
      sealingKey: server.sealingKey,
    });
    const twin = createHttpServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => twin.once('listening', resolve));
    try {
      const other = new ContractClient(`http://127.0.0.1:${(twin.address() as AddressInfo).port}`);
      expect((await other.call('listTags', { key: household.writeKey })).status).toBe(200);
      expect((await server.api.call('listTags', { key: household.writeKey })).status).toBe(200);
      expect((await other.call('listTags', { key: household.writeKey })).status).toBe(200);
      expect((await server.api.call('listTags', { key: household.writeKey })).status).toBe(429);
      expect((await other.call('listTags', { key: household.readKey })).status).toBe(429);
    } finally {
      twin.closeAllConnections();
      await new Promise((resolve) => twin.close(resolve));
    }
    const counters = await server.query<{ key: string }>('select key from rate_limits order by key');
    expect(counters.map((row) => row.key.split(':')[0])).toEqual(expect.arrayContaining(['address', 'credential']));
  });

  it('limits a client address across credentials, even without one', async () => {
    // 8 per address: 4 + 4 above have spent it (refused requests count too).
    const anonymous = await server.api.call('listTags', {});
    expect(anonymous.status).toBe(429);
    const fresh = await createHousehold(server);
    expect((await server.api.call('listTags', { key: fresh.readKey })).status).toBe(429);
  });
});

describe.each(BEHIND_A_PROXY)('the per-address limit behind a proxy, %s', (_, trustProxy) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ trustProxy, rateLimitPerAddress: 5, rateLimitWindowSeconds: 600 });
  });
  afterAll(() => server?.close());

  const from = (forged: string, seenByProxy: string) => ({ 'x-forwarded-for': `${forged}, ${seenByProxy}` });

  it('counts the address the proxy saw, not the left-most entry the client wrote', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await server.api.call('listTags', { headers: from(`203.0.113.${i}`, '198.51.100.7') })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Another client behind the same proxy has a counter of its own.
    expect((await server.api.call('listTags', { headers: from('198.51.100.7', '198.51.100.8') })).status).toBe(401);
  });
});

describe('pruneRateLimits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('forgets counters whose window has ended and keeps live ones', async () => {
    const now = Date.now();
    await server.query(
      `insert into rate_limits (key, points, expire) values ('address:gone', 5, $1), ('address:live', 5, $2)`,
      [now - 1000, now + 60_000],
    );
    expect(await pruneRateLimits(sqlOn(server.em()))).toBe(1);
    expect(await server.query('select key from rate_limits')).toEqual([{ key: 'address:live' }]);
  });
});

describe('statements that change several counters', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  // Another transaction holds the first counter and then takes the second, in key order. A
  // statement that took the second counter first (as the give-back did, in heap order) would
  // deadlock with it: PostgreSQL ends one of the two with 40P01, a 500 for a sign-in.
  it.each([
    ['gives points back', -1, (counters: WindowCounter[]) => giveOnePointBack(sqlOn(server.em()), counters)],
    [
      'counts points',
      1,
      (counters: WindowCounter[]) =>
        countOnePoint(
          sqlOn(server.em()),
          counters.map(({ key }) => ({ key, windowMs: 60_000 })),
          Date.now(),
        ),
    ],
  ])(
    '%s taking the counters in key order, whatever order it is given and the rows lie in',
    async (what, step, change) => {
      const [first, second] = [`${what}:a`, `${what}:b`];
      // The second key's row first in the heap, and first in the list.
      await server.query(`insert into rate_limits (key, points, expire) values ($1, 5, $3), ($2, 5, $3)`, [
        second,
        first,
        Date.now() + 60_000,
      ]);
      const counters = await server.query<WindowCounter>(
        `select key, points, expire::text as expire from rate_limits where key = any($1) order by key desc`,
        [[first, second]],
      );
      const holder = new pg.Client({ connectionString: server.databaseUrl });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select 1 from rate_limits where key = $1 for update', [first]);
        const changed = change(counters);
        changed.catch(() => {});
        await until(
          async () => {
            const [row] = await server.query<{ n: number }>(
              `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query like '%rate_limits%'`,
            );
            return row!.n > 0;
          },
          10_000,
          'the statement to wait for the held counter',
        );
        await holder.query('update rate_limits set points = points + 10 where key = $1', [second]);
        await holder.query('commit');
        await changed;
      } finally {
        await holder.end();
      }
      const after = await server.query<{ key: string; points: number }>(
        'select key, points from rate_limits where key = any($1) order by key',
        [[first, second]],
      );
      expect(after).toEqual([
        { key: first, points: 5 + step },
        { key: second, points: 15 + step },
      ]);
    },
  );
});
