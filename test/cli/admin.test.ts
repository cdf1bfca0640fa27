import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../server/users/password.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run --silent admin -- ...args` as a user would, against this file's database. */
function admin(...args: string[]): Promise<Outcome> {
  return adminWith({}, ...args);
}

/** The same with more environment variables and, optionally, text on stdin. */
function adminWith(options: { env?: Record<string, string>; stdin?: string }, ...args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(
      'npm',
      ['run', '--silent', 'admin', '--', ...args],
      { env: { ...process.env, DATABASE_URL: server.databaseUrl, ...options.env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
    child.stdin!.end(options.stdin ?? '');
  });
}

const lastLine = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!);
const counts = async () =>
  (
    await server.query(
      'select (select count(*) from users)::int as users, (select count(*) from api_keys)::int as keys',
    )
  )[0];

describe('admin CLI', () => {
  it('takes secrets from stdin or the environment, keeping them out of the process list', async () => {
    const passwordOf = async (email: string) =>
      (await server.query<{ password_hash: string }>('select password_hash from users where email = $1', [email]))[0]!
        .password_hash;
    const piped = await adminWith(
      { stdin: 'piped secret phrase\nignored' },
      'create-user',
      '--email',
      'piped@example.com',
      '--password-stdin',
      '--family',
      'Piped', // prettier-ignore
    );
    expect(piped.code).toBe(0);
    expect(await verifyPassword('piped secret phrase', await passwordOf('piped@example.com'))).toEqual({ valid: true, rehash: false }); // prettier-ignore
    const fromEnv = await adminWith(
      { env: { ADMIN_PASSWORD: 'environment phrase' } },
      'create-user',
      '--email',
      'env@example.com',
      '--family',
      'Env', // prettier-ignore
    );
    expect(fromEnv.code).toBe(0);
    expect((await verifyPassword('environment phrase', await passwordOf('env@example.com'))).valid).toBe(true);
    const key = lastLine((await admin('create-api-key', '--email', 'env@example.com', '--scope', 'read')).stdout).key;
    const revoked = await adminWith({ stdin: `${key}\n` }, 'revoke-api-key', '--key-stdin');
    expect(revoked.code).toBe(0);
    const { id } = lastLine(revoked.stdout);
    const [row] = await server.query<{ revoked: boolean }>('select revoked_at is not null as revoked from api_keys where id = $1', [id]); // prettier-ignore
    expect(row).toEqual({ revoked: true });
  });

  it('creates a user and family, then a key that works against the API', async () => {
    const created = await admin(
      'create-user',
      '--email',
      'Owner@Example.com',
      '--password',
      'long enough secret',
      '--family',
      'The Owners',
    );
    expect(created.code).toBe(0);
    const ids = lastLine(created.stdout);
    expect(ids).toEqual({
      user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      family_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const [family] = await server.query(
      'select f.name from families f join users u on u.family_id = f.id where u.id = $1',
      [ids.user_id],
    );
    expect(family).toEqual({ name: 'The Owners' });

    const issued = await admin('create-api-key', '--email', 'owner@example.com', '--scope', 'read', '--name', 'laptop');
    expect(issued.code).toBe(0);
    const { key } = lastLine(issued.stdout);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect((await server.api.call('listAccounts', { key })).status).toBe(200);
    expect((await server.api.call('createTag', { key, body: { tag: { name: 'x' } } })).status).toBe(403);

    const revoked = await admin('revoke-api-key', '--key', key);
    expect(revoked.code).toBe(0);
    expect((await server.api.call('listAccounts', { key })).status).toBe(401);
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['make-coffee']],
    ['a missing --email', ['create-user', '--password', 'long enough secret', '--family', 'F']],
    ['a short password', ['create-user', '--email', 'a@b.c', '--password', 'short', '--family', 'F']],
    [
      'an unknown option',
      ['create-user', '--email', 'a@b.c', '--password', 'long enough secret', '--family', 'F', '--admin'],
    ],
    ['an unknown scope', ['create-api-key', '--email', 'owner@example.com', '--scope', 'admin']],
    ['an unknown user', ['create-api-key', '--email', 'nobody@example.com', '--scope', 'read']],
  ])('exits 2 with a message on %s, writing nothing', async (_, args) => {
    const before = await counts();
    const outcome = await admin(...args);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/error: .+/);
    expect(outcome.stdout).toBe('');
    expect(await counts()).toEqual(before);
  });

  it('exits 1 when the email is taken', async () => {
    const outcome = await admin(
      'create-user',
      '--email',
      'owner@example.com',
      '--password',
      'another long secret',
      '--family',
      'Again',
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/already exists/);
  });
});
