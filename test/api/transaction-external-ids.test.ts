import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { startWithTwoHouseholds, type TestHousehold } from '../support/households.ts';
import type { TestServer } from '../support/test-server.ts';

// Issue 28, item 3: a transaction may carry the client's own id; repeating it answers the stored one.
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let checking: string;
let savings: string;

beforeAll(async () => {
  ({ server, household, other } = await startWithTwoHouseholds());
  const open = async (name: string) =>
    (
      await server.api.call('createAccount', {
        key: household.writeKey,
        body: { account: { name, account_type: 'depository' } },
      })
    ).body.data.id as string;
  checking = await open('Checking');
  savings = await open('Savings');
});
afterAll(() => server?.close());

const create = (fields: Record<string, unknown>, key = household.writeKey) =>
  server.api.call('createTransaction', {
    key,
    body: {
      transaction: { account_id: checking, date: '2024-06-01', amount: 12.5, name: 'Lunch', ...fields },
    } as never,
  });
const rowsWith = async (externalId: string) =>
  (await server.query<{ n: number }>('select count(*)::int as n from entries where external_id = $1', [externalId]))[0]!
    .n;

describe('idempotent creates with external_id and source', () => {
  it('returns both fields, and answers a repeat with the stored transaction (200), writing nothing', async () => {
    const first = await create({ external_id: 'bank-1', source: 'plaid' });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ external_id: 'bank-1', source: 'plaid', amount: '$12.50' });
    const before = await databaseSnapshot(server);
    const again = await create({ external_id: 'bank-1', source: 'plaid', amount: 99, name: 'Changed' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(await databaseSnapshot(server)).toEqual(before);
    const read = await server.api.call('getTransaction', {
      key: household.readKey,
      params: { id: first.body.data.id },
    });
    expect(read.body.data).toMatchObject({ external_id: 'bank-1', source: 'plaid' });
  });

  it('takes source "api" for an external_id without one, as the reference does', async () => {
    const first = await create({ external_id: 'offline-7' });
    expect([first.status, first.body.data.source]).toEqual([201, 'api']);
    const again = await create({ external_id: 'offline-7', source: 'api' });
    expect([again.status, again.body.data.id]).toEqual([200, first.body.data.id]);
  });

  it('keeps the pair per account and per source', async () => {
    const first = await create({ external_id: 'shared', source: 'one' });
    const otherSource = await create({ external_id: 'shared', source: 'two' });
    const otherAccount = await create({ external_id: 'shared', source: 'one', account_id: savings });
    expect([first.status, otherSource.status, otherAccount.status]).toEqual([201, 201, 201]);
    expect(new Set([first.body.data.id, otherSource.body.data.id, otherAccount.body.data.id]).size).toBe(3);
    expect(await rowsWith('shared')).toBe(3);
    // Another family's account stays another family's: 404, as without the pair.
    const foreign = await create({ external_id: 'shared', source: 'one' }, other.writeKey);
    expect(foreign.status).toBe(404);
  });

  it('refuses source without external_id, and either beyond its length, writing nothing', async () => {
    const before = await databaseSnapshot(server);
    const cases: [Record<string, unknown>, { path: string; message: string }][] = [
      [
        { source: 'plaid' },
        { path: '/body/transaction/external_id', message: 'external_id is required when source is sent' },
      ],
      [{ external_id: 'x'.repeat(256) }, { path: '/body/transaction/external_id', message: expect.any(String) }],
      [
        { external_id: 'x', source: 'y'.repeat(65) },
        { path: '/body/transaction/source', message: expect.any(String) },
      ],
    ];
    for (const [fields, detail] of cases) {
      const response = await create(fields);
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.body.errors).toEqual([detail]);
    }
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('holds the pair as a database constraint, not only in the request', async () => {
    const a = (await create({ external_id: 'constraint-a', source: 'csv' })).body.data.id;
    const b = (await create({ external_id: 'constraint-b', source: 'csv' })).body.data.id;
    await expect(server.query(`update entries set external_id = 'constraint-a' where id = $1`, [b])).rejects.toThrow(
      /entries_account_source_external_id_unique/,
    );
    await expect(server.query(`update entries set source = null where id = $1`, [a])).rejects.toThrow(
      /entries_external_id_with_source/,
    );
  });

  it('writes one transaction of 24 concurrent identical creates; every answer names it', async () => {
    const responses = await Promise.all(
      Array.from({ length: 24 }, () => create({ external_id: 'burst', source: 'mobile', amount: '4.20' })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([
      ...Array.from({ length: 23 }, () => 200),
      201,
    ]);
    expect(new Set(responses.map((response) => response.body.data.id)).size).toBe(1);
    expect(await rowsWith('burst')).toBe(1);
    await server.drainJobs();
  });
});
