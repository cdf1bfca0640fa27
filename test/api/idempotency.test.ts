import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { bearer, login } from '../support/sign-in.ts';
import { AI_STAND_IN, startTestServer, type TestServer } from '../support/test-server.ts';
import { createFixtures, type Fixtures } from '../support/transactions-fixtures.ts';

/** Issue 28, item 4: the `Idempotency-Key` header (docs/api-decisions.md#idempotent-writes). */

let server: TestServer;
let household: TestHousehold;
let fx: Fixtures;

beforeAll(async () => {
  // A provider that is never called: a chat made with a title alone queues no reply.
  server = await startTestServer({ ai: AI_STAND_IN });
  household = await createHousehold(server, { aiEnabled: true });
  fx = await createFixtures(server, household.writeKey);
});
afterAll(() => server?.close());

const withKey = (key: string, headers: Record<string, string> = {}) => ({ ...headers, 'idempotency-key': key });

async function transactionsNamed(name: string): Promise<number> {
  const rows = await server.query<{ count: number }>(
    `select count(*)::int as count from entries where entryable_type = 'Transaction' and name = $1`,
    [name],
  );
  return rows[0]!.count;
}

async function keptKeys(): Promise<number> {
  const rows = await server.query<{ count: number }>(`select count(*)::int as count from idempotency_keys`);
  return rows[0]!.count;
}

function lunch(name: string) {
  return { transaction: { account_id: fx.accounts.checking.id, date: '2026-11-20', amount: 12.5, name } };
}

describe('a write sent again with its Idempotency-Key', () => {
  it('answers the first status and body again, marked replayed, and writes once', async () => {
    const key = crypto.randomUUID();
    const first = await server.api.call('createTransaction', {
      key: household.writeKey,
      headers: withKey(key),
      body: lunch('Replayed lunch'),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    // The same request, its members in another order.
    const { transaction } = lunch('Replayed lunch');
    const again = await server.api.call('createTransaction', {
      key: household.writeKey,
      headers: withKey(key),
      body: {
        transaction: {
          name: transaction.name,
          amount: 12.5,
          date: transaction.date,
          account_id: transaction.account_id,
        },
      },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await transactionsNamed('Replayed lunch')).toBe(1);
  });

  it('is the same key for every credential of one user: an API key and a bearer token', async () => {
    const key = crypto.randomUUID();
    const first = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(key),
      body: { tag: { name: 'Per user' } },
    });
    const signedIn = await login(server, household.email);
    const again = await server.api.call('createTag', {
      headers: withKey(key, bearer(signedIn.body.access_token)),
      body: { tag: { name: 'Per user' } },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it("keeps one user's keys apart from another's", async () => {
    const other = await createHousehold(server);
    const key = crypto.randomUUID();
    const mine = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(key),
      body: { tag: { name: 'Mine' } },
    });
    const theirs = await server.api.call('createTag', {
      key: other.writeKey,
      headers: withKey(key),
      body: { tag: { name: 'Mine' } },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotency-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('replays a delete, also one answered without a body', async () => {
    const tag = await server.api.call('createTag', { key: household.writeKey, body: { tag: { name: 'Gone' } } });
    const key = crypto.randomUUID();
    const options = { key: household.writeKey, headers: withKey(key), params: { id: tag.body.data.id } };
    const deleted = await server.api.call('deleteTag', options);
    const again = await server.api.call('deleteTag', options);
    expect([deleted.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(deleted.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');

    const chat = await server.api.call('createChat', { key: household.writeKey, body: { title: 'Short lived' } });
    const chatKey = crypto.randomUUID();
    const chatOptions = { key: household.writeKey, headers: withKey(chatKey), params: { id: chat.body.data.id } };
    const chatDeleted = await server.api.call('deleteChat', chatOptions);
    const chatAgain = await server.api.call('deleteChat', chatOptions);
    expect([chatDeleted.status, chatAgain.status]).toEqual([204, 204]);
    expect(chatAgain.body).toBeUndefined();
    expect(chatAgain.headers.get('idempotency-replayed')).toBe('true');
  });

  it('keeps a refusal of the operation: the same request gets it again though it would now succeed', async () => {
    await server.api.call('createTag', { key: household.writeKey, body: { tag: { name: 'Taken' } } });
    const key = crypto.randomUUID();
    const refused = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(key),
      body: { tag: { name: 'taken' } },
    });
    expect(refused.status).toBe(422);
    await server.query(`update tags set name = 'Freed' where name = 'Taken'`);
    const again = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(key),
      body: { tag: { name: 'taken' } },
    });
    expect(again.status).toBe(422);
    expect(again.body).toEqual(refused.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  });

  it('releases the key after a 5xx, so the same request runs again', async () => {
    // A fault of the database the request cannot help (SQLSTATE XX000): a 500.
    await server.query(`create function refuse_tags() returns trigger language plpgsql as $$
      begin raise exception 'tags are refused for a while' using errcode = 'XX000'; end $$`);
    await server.query(`create trigger refuse_tags before insert on tags for each row execute function refuse_tags()`);
    const key = crypto.randomUUID();
    const request = { key: household.writeKey, headers: withKey(key), body: { tag: { name: 'After a fault' } } };
    try {
      expect((await server.api.call('createTag', request)).status).toBe(500);
    } finally {
      await server.query(`drop trigger refuse_tags on tags`);
      await server.query(`drop function refuse_tags()`);
    }
    const retried = await server.api.call('createTag', request);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBeNull();
  });
});

describe('a key that cannot be used', () => {
  it('refuses the same key with another body with 422 idempotency_key_reused, changing nothing', async () => {
    const key = crypto.randomUUID();
    await server.api.call('createTransaction', {
      key: household.writeKey,
      headers: withKey(key),
      body: lunch('First use'),
    });
    const before = await databaseSnapshot(server);
    const reused = await server.api.call('createTransaction', {
      key: household.writeKey,
      headers: withKey(key),
      body: lunch('Another lunch'),
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toBe('idempotency_key_reused');
    expect(reused.body.errors).toEqual([expect.objectContaining({ path: '/header/idempotency-key' })]);
    // Another operation with the same key is another request too.
    const elsewhere = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(key),
      body: { tag: { name: 'Elsewhere' } },
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error).toBe('idempotency_key_reused');
    expect(await databaseSnapshot(server)).toEqual(before);
    expect(await transactionsNamed('Another lunch')).toBe(0);
  });

  it('takes keys of up to 255 characters and refuses longer or empty ones with 422', async () => {
    const longest = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey('k'.repeat(255)),
      body: { tag: { name: 'Long key' } },
    });
    expect(longest.status).toBe(201);
    const before = await databaseSnapshot(server);
    const tooLong = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey('k'.repeat(256)),
      body: { tag: { name: 'Too long a key' } },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual([expect.objectContaining({ path: '/header/idempotency-key' })]);
    const empty = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(''),
      body: { tag: { name: 'Empty key' } },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual([expect.objectContaining({ path: '/header/idempotency-key' })]);
    expect(await databaseSnapshot(server)).toEqual(before);
  });

  it('keeps nothing for a request refused before it runs', async () => {
    const kept = await keptKeys();
    const key = crypto.randomUUID();
    const readOnly = await server.api.call('createTag', {
      key: household.readKey,
      headers: withKey(key),
      body: { tag: { name: 'Read only' } },
    });
    expect(readOnly.status).toBe(403);
    const invalid = await server.api.call('createTag', {
      key: household.writeKey,
      headers: withKey(key),
      body: { tag: {} },
    });
    expect(invalid.status).toBe(422);
    expect(await keptKeys()).toBe(kept);
  });
});

describe('a repeat while the first request runs', () => {
  it('is answered 409 idempotency_key_in_use, and gets the answer once the first has one', async () => {
    const key = crypto.randomUUID();
    // The create locks its account first: holding that lock keeps the first request running.
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from accounts where id = $1 for update', [fx.accounts.savings.id]);
      const body = { transaction: { account_id: fx.accounts.savings.id, date: '2026-11-21', amount: 3, name: 'Held' } };
      const first = server.api.call('createTransaction', { key: household.writeKey, headers: withKey(key), body });
      // Wait for the first request to hold the key (a row without an answer), not for a time.
      while (
        (await server.query(`select 1 from idempotency_keys where key = $1 and status is null`, [key])).length === 0
      ) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const repeat = await server.api.call('createTransaction', {
        key: household.writeKey,
        headers: withKey(key),
        body,
      });
      expect(repeat.status).toBe(409);
      expect(repeat.body.error).toBe('idempotency_key_in_use');
      await holder.query('commit');
      expect((await first).status).toBe(201);
      const after = await server.api.call('createTransaction', {
        key: household.writeKey,
        headers: withKey(key),
        body,
      });
      expect(after.status).toBe(201);
      expect(after.headers.get('idempotency-replayed')).toBe('true');
      expect(after.body).toEqual((await first).body);
      expect(await transactionsNamed('Held')).toBe(1);
    } finally {
      await holder.end();
    }
  });

  it('runs exactly one of 24 concurrent identical requests; the others replay or are told it runs', async () => {
    const key = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        server.api.call('createTransaction', {
          key: household.writeKey,
          headers: withKey(key),
          body: lunch('Concurrent lunch'),
        }),
      ),
    );
    expect(await transactionsNamed('Concurrent lunch')).toBe(1);
    const ran = answers.filter((answer) => answer.status === 201 && !answer.headers.get('idempotency-replayed'));
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.body).toEqual(ran[0]!.body);
      else expect([answer.status, answer.body.error]).toEqual([409, 'idempotency_key_in_use']);
    }
  });
});

describe('expiry', () => {
  it('removes kept answers after 24 hours with the idempotency_expire job; the key can then be used afresh', async () => {
    const key = crypto.randomUUID();
    const request = { key: household.writeKey, headers: withKey(key), body: lunch('Kept a day') };
    expect((await server.api.call('createTransaction', request)).status).toBe(201);
    const held = () => server.query(`select 1 from idempotency_keys where key = $1`, [key]);

    await server.query(`select graphile_worker.add_job('idempotency_expire', '{}')`);
    await server.drainJobs();
    expect(await held()).toHaveLength(1);

    server.time.advance(24 * 3_600_000 + 1000);
    try {
      await server.query(`select graphile_worker.add_job('idempotency_expire', '{}')`);
      await server.drainJobs();
      expect(await held()).toHaveLength(0);
      const afresh = await server.api.call('createTransaction', request);
      expect(afresh.status).toBe(201);
      expect(afresh.headers.get('idempotency-replayed')).toBeNull();
      expect(await transactionsNamed('Kept a day')).toBe(2);
    } finally {
      server.time.reset();
    }
  });
});
