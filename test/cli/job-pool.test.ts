import { Writable } from 'node:stream';
import pino from 'pino';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobPool, JobClient } from '../../server/jobs/job-pool.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A logger at warn level whose lines are kept. */
function keptLogger() {
  const lines: { msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as { msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, sink), lines };
}

/** Ends the backend of `client` as the database does when it shuts down, and waits for the client to hear it. */
async function terminate(client: pg.ClientBase): Promise<void> {
  const [{ pid }] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [{ pid: number }];
  // The error, then the end of the connection: every event of it has been seen.
  const heard = new Promise((resolve) => client.once('error', resolve));
  const closed = new Promise((resolve) => client.once('end', resolve));
  await server.query('select pg_terminate_backend($1)', [pid]);
  await Promise.all([heard, closed]);
}

describe('a job client', () => {
  it('survives its backend going while no query runs, and says so on the next query', async () => {
    const told: Error[] = [];
    // Outside a pool: nothing but the client itself listens (the pool's own listener comes later).
    const client = new JobClient({ connectionString: server.databaseUrl, onLost: (error) => told.push(error) });
    await client.connect();
    await terminate(client);
    expect(told.map((error) => (error as { code?: string }).code)).toContain('57P01');
    const next = await client.query('select 1').then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
    expect(next).toBe('08006');
    await client.end().catch(() => undefined);
  });
});

describe('the job pool', () => {
  it('reports a lost connection, but not one of a pool being ended (the shutdown of npm start)', async () => {
    const { logger, lines } = keptLogger();
    const pool = createJobPool(server.databaseUrl, 2, 0, logger);
    const running = await pool.connect();
    await terminate(running);
    running.release(true);
    // One report or more (the error, and the socket closing after it): all of them that one.
    const reported = lines.length;
    expect(reported).toBeGreaterThan(0);
    expect(new Set(lines.map((line) => line.msg))).toEqual(new Set(['job connection lost']));

    const last = await pool.connect();
    const ended = pool.end();
    await terminate(last);
    last.release(true);
    await ended;
    expect(lines).toHaveLength(reported);
  });
});
