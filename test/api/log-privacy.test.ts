import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../server/core/sql.ts';
import { createLogger } from '../../server/core/logger.ts';
import { User } from '../../server/users/user.entity.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Issue 9, item 16: database errors are logged by code and statement, never with the values of the request.
let server: TestServer;
let household: TestHousehold;

beforeAll(async () => {
  server = await startTestServer();
  household = await createHousehold(server);
});
afterAll(() => server?.close());

/** Logs one error through the process logger and returns the JSON line it wrote. */
function logged(error: unknown): string {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  createLogger('info', sink).error({ err: error }, 'unhandled error');
  return lines.join('');
}

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the database to refuse the statement');
}

describe('logged database errors', () => {
  it('keep the SQLSTATE and constraint of an ORM error, not its SQL or values', async () => {
    const em = server.em();
    const user = await em.findOneOrFail(User, household.userId);
    const error = await failure(() =>
      em.insert(User, { ...user, id: crypto.randomUUID(), email: household.email, passwordHash: 'secret-hash-value' }),
    );
    expect(String((error as Error).message)).toContain(household.email); // what would have leaked
    const line = logged(error);
    expect(line).not.toContain(household.email);
    expect(line).not.toContain('secret-hash-value');
    expect(JSON.parse(line).err).toMatchObject({
      code: '23505',
      constraint: 'users_email_key',
      message: 'database error 23505',
    });
  });

  it('name the prepared statement of a failed query instead of quoting it', async () => {
    const error = await failure(() => sql(server.em(), "select 'card 4111 1111'::int where ? = 1", [1]));
    const line = logged(error);
    expect(line).not.toContain('4111');
    expect(JSON.parse(line).err).toMatchObject({ code: '22P02', statement: expect.stringMatching(/^q_/) });
  });
});
