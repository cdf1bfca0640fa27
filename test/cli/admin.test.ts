import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../server/auth/totp.ts';
import { verifyPassword } from '../../server/users/password.ts';
import { createHousehold } from '../support/households.ts';
import { bearer, device, login } from '../support/sign-in.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let bundleDirectory: string;

beforeAll(async () => {
  server = await startTestServer();
  // tsx compiles and loads the whole server at each start of scripts/admin.ts (1-2 s of CPU); most
  // tests run the CLI as one esbuild bundle of it instead, built as tsx compiles it. Inside the
  // repository, so that its packages resolve from node_modules.
  await mkdir('node_modules/.cache', { recursive: true });
  bundleDirectory = await mkdtemp('node_modules/.cache/admin-test-');
  await build({
    entryPoints: ['scripts/admin.ts'],
    outfile: path.join(bundleDirectory, 'admin.mjs'),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
  });
});
afterAll(async () => {
  await server?.close();
  if (bundleDirectory) await rm(bundleDirectory, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the admin CLI with `args` against this file's database. */
function admin(...args: string[]): Promise<Outcome> {
  return adminWith({}, ...args);
}

/**
 * The same with more environment variables and, optionally, text on stdin; `npm` runs it as a user
 * would, `npm run --silent admin -- ...args`, else the bundle runs.
 */
function adminWith(
  options: { env?: Record<string, string>; stdin?: string; npm?: boolean },
  ...args: string[]
): Promise<Outcome> {
  const [command, commandArgs]: [string, string[]] = options.npm
    ? ['npm', ['run', '--silent', 'admin', '--', ...args]]
    : [process.execPath, [path.join(bundleDirectory, 'admin.mjs'), ...args]];
  return new Promise((resolve) => {
    const child = execFile(
      command,
      commandArgs,
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
      { stdin: 'piped secret phrase\nignored', npm: true },
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
    const created = await adminWith(
      { npm: true },
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
  ])('exits 2 with a message on %s, writing nothing', async (_, args) => {
    const before = await counts();
    const outcome = await admin(...args);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/error: .+/);
    expect(outcome.stdout).toBe('');
    expect(await counts()).toEqual(before);
  });

  it.each(
    [['help'], ['--help'], ['-h'], ['create-user', '--help'], ['revoke-api-key', '-h']].map((args) => [
      args.join(' '),
      args,
    ]),
  )('prints the usage with its exit codes on %s and exits 0, doing nothing', async (_, args) => {
    const before = await counts();
    const outcome = await admin(...(args as string[]));
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
    expect(outcome.stdout).toMatch(/^usage: npm run --silent admin -- <command> \[options\]\n/);
    expect(outcome.stdout).toContain('exit codes: 0 done');
    expect(await counts()).toEqual(before);
  });

  it('prints the usage on --help through npm, as the README shows it', async () => {
    const outcome = await adminWith({ npm: true }, '--help');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('create-user     --email E --password P --family NAME');
  });

  it.each([
    ['an unknown user', ['create-api-key', '--email', 'nobody@example.com', '--scope', 'read']],
    ['an unknown key', ['revoke-api-key', '--key', 'f'.repeat(64)]],
  ])('exits 1 (refused) with a message on %s, writing nothing', async (_, args) => {
    const before = await counts();
    const outcome = await admin(...args);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/^error: (no user with email nobody@example\.com|no such API key)\n$/);
    expect(outcome.stdout).toBe('');
    expect(await counts()).toEqual(before);
  });

  it('exits 1 when the email is taken', async () => {
    // Through npm: its exit code and stderr reach the caller.
    const outcome = await adminWith(
      { npm: true },
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

describe('admin CLI: sign-in', () => {
  /** The admin CLI with the test app's sealing key, as every process of one deployment shares it. */
  const adminShared = (...args: string[]) =>
    adminWith({ env: { MFA_ENCRYPTION_KEY: server.sealingKey.toString('hex') } }, ...args);

  it('enable-mfa prints the secret once; sign-in then needs its codes; disable-mfa turns it off', async () => {
    const household = await createHousehold(server);
    const enabled = await adminShared('enable-mfa', '--email', household.email);
    expect(enabled.code).toBe(0);
    const { otpauth_url, secret } = lastLine(enabled.stdout);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/.+\?.*secret=[A-Z2-7]{32}/);
    expect(new URL(otpauth_url).searchParams.get('digits')).toBe('6');
    expect(new URL(otpauth_url).searchParams.get('period')).toBe('30');
    const [row] = await server.query<{ otp_secret: string }>('select otp_secret from users where id = $1', [
      household.userId,
    ]);
    expect(row!.otp_secret).not.toContain(secret);

    expect((await login(server, household.email)).body.mfa_required).toBe(true);
    const signedIn = await login(server, household.email, { otp_code: totpCode(secret, Date.now()) });
    expect(signedIn.status).toBe(200);

    expect((await adminShared('disable-mfa', '--email', household.email)).code).toBe(0);
    expect((await login(server, household.email, { device: device('after') })).status).toBe(200);
  });

  it('revoke-tokens signs a user out of every device; deactivate-user does too, for good', async () => {
    const household = await createHousehold(server);
    const phone = (await login(server, household.email, { device: device('phone') })).body;
    const tablet = (await login(server, household.email, { device: device('tablet') })).body;
    const revoked = await admin('revoke-tokens', '--email', household.email);
    expect(revoked.code).toBe(0);
    expect(lastLine(revoked.stdout)).toEqual({ user_id: household.userId, revoked_tokens: 2 });
    for (const tokens of [phone, tablet]) {
      expect((await server.api.call('listTags', { headers: bearer(tokens.access_token) })).status).toBe(401);
      expect((await server.api.call('refreshToken', { body: { refresh_token: tokens.refresh_token } })).status).toBe(
        401,
      );
    }

    const again = (await login(server, household.email, { device: device('phone') })).body;
    const deactivated = await admin('deactivate-user', '--email', household.email);
    expect(lastLine(deactivated.stdout)).toMatchObject({ active: false, revoked_tokens: 1 });
    expect((await admin('activate-user', '--email', household.email)).code).toBe(0);
    // Activation does not bring old tokens back: the user signs in again.
    expect((await server.api.call('listTags', { headers: bearer(again.access_token) })).status).toBe(401);
    expect((await login(server, household.email)).status).toBe(200);
  });

  it('enable-ai and disable-ai switch the assistant for a user and say whether a provider is configured', async () => {
    const household = await createHousehold(server);
    const flag = async () =>
      (
        await server.query<{ ai_enabled: boolean }>('select ai_enabled from users where id = $1', [household.userId])
      )[0]!.ai_enabled;
    const enabled = await adminWith(
      { env: { AI_BASE_URL: 'http://127.0.0.1:11434/v1' } },
      'enable-ai',
      '--email',
      household.email,
    );
    expect(enabled.code).toBe(0);
    expect(lastLine(enabled.stdout)).toEqual({
      user_id: household.userId,
      ai_enabled: true,
      provider_configured: true,
    });
    expect(await flag()).toBe(true);
    const disabled = await admin('disable-ai', '--email', household.email);
    expect(lastLine(disabled.stdout)).toEqual({
      user_id: household.userId,
      ai_enabled: false,
      provider_configured: false,
    });
    expect(await flag()).toBe(false);
  });

  it('refuses an unknown email with exit code 1 and changes nothing', async () => {
    const commands = ['revoke-tokens', 'enable-mfa', 'disable-mfa', 'enable-ai', 'disable-ai'];
    const before = await server.query('select otp_required, otp_secret, ai_enabled from users order by id');
    const outcomes = await Promise.all(
      commands.map((command) => adminShared(command, '--email', 'nobody@example.com')),
    );
    for (const outcome of outcomes) {
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toMatch(/no user with email nobody@example.com/);
    }
    expect(await server.query('select otp_required, otp_secret, ai_enabled from users order by id')).toEqual(before);
  });
});
