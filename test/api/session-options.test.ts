import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../server/core/sql.ts';
import { withSessionOptions } from '../../server/db/session-options.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A setting as a new session of `url` sees it. */
async function settingOf(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ value: string }>('select current_setting($1) as value', [name]);
    return rows[0]!.value;
  } finally {
    await client.end();
  }
}

describe('session options (docs/stack-traps.md#postgresql-jit)', () => {
  it('turns JIT off on the ORM pool that requests use', async () => {
    const [row] = await sql<{ jit: string }>(server.em(), "select current_setting('jit') as jit");
    expect(row!.jit).toBe('off');
  });

  it('turns JIT off on a connection string such as the worker gets, where it is on by default', async () => {
    expect(await settingOf(server.databaseUrl, 'jit')).toBe('on');
    expect(await settingOf(withSessionOptions(server.databaseUrl), 'jit')).toBe('off');
  });

  it('keeps the options a connection string already has', async () => {
    const given = new URL(server.databaseUrl);
    given.searchParams.set('options', '-c statement_timeout=4321');
    const url = withSessionOptions(given.href);
    expect(await settingOf(url, 'statement_timeout')).toBe('4321ms');
    expect(await settingOf(url, 'jit')).toBe('off');
  });
});
