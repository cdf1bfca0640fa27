import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, unlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import {
  isAcceptingConnections,
  startEmbeddedPostgres,
  type DatabaseServer,
} from '../../server/db/embedded-postgres.ts';

// Issue 9, item 15: the embedded cluster is its owner's alone.
let directory: string;
let port: number;
let server: DatabaseServer | undefined;
const logger = pino({ level: 'silent' });

const socketUrl = (password: string) => `postgres://postgres:${password}@${encodeURIComponent(directory)}:${port}/postgres`; // prettier-ignore

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'pg-own-'));
  port = await freePort();
  server = await startEmbeddedPostgres(directory, port, logger);
});
afterAll(async () => {
  await server?.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('the embedded PostgreSQL', () => {
  it('does not listen on TCP, and is reached over a socket in its owner-only directory', async () => {
    const tcp = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    expect(tcp).toBe(false);
    expect((await stat(directory)).mode & 0o077).toBe(0);
    expect(await isAcceptingConnections(server!.adminUrl)).toBe(true);
  });

  it('has a generated superuser password, kept owner-only, and refuses the well-known one', async () => {
    const file = path.join(directory, '.superuser-password');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const password = (await readFile(file, 'utf8')).trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(server!.adminUrl).toContain(password);
    expect(await isAcceptingConnections(socketUrl('postgres'))).toBe(false);
  });

  it('lets a second process attach with the saved password', async () => {
    const attached = await startEmbeddedPostgres(directory, port, logger);
    expect(attached.adminUrl).toBe(server!.adminUrl);
    expect(await isAcceptingConnections(attached.adminUrl)).toBe(true);
  });

  it('replaces the well-known password of a cluster made before passwords were generated', async () => {
    const client = new pg.Client({ connectionString: server!.adminUrl });
    await client.connect();
    await client.query("alter user postgres password 'postgres'");
    await client.end();
    await unlink(path.join(directory, '.superuser-password'));
    await server!.stop();
    server = await startEmbeddedPostgres(directory, port, logger);
    const password = (await readFile(path.join(directory, '.superuser-password'), 'utf8')).trim();
    expect(password).not.toBe('postgres');
    expect(await isAcceptingConnections(server.adminUrl)).toBe(true);
    expect(await isAcceptingConnections(socketUrl('postgres'))).toBe(false);
  });
});

describe('a process that loads it', () => {
  // embedded-postgres's exit hook ends a drained process with process.exit(0); a failed vitest run
  // (which sets process.exitCode and lets its loop drain) passed CI that way.
  it.each([0, 3])('ends with the exit code it set (%i)', (code) => {
    const script = `import('./server/db/embedded-postgres.ts').then(() => { process.exitCode = ${code}; });`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(code);
  });
});
