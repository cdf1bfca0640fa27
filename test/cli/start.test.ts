import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelTestServer } from '../support/model-test-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let database: TestServer;
let dataDir: string;

beforeAll(async () => {
  database = await startTestServer();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'finance-start-'));
});
afterAll(async () => {
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts the service as `npm start` does (server/main.ts), on this file's database and a free port. */
function start(env: Record<string, string> = {}): {
  child: ChildProcess;
  banner: Promise<string>;
  exited: Promise<number | null>;
  logs: () => string;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: database.databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let logs = '';
  child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const banner = new Promise<string>((resolve, reject) => {
    // The banner is for the terminal (stderr); stdout carries the JSON log lines.
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/try: curl/.test(output)) resolve(output);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, banner, exited, logs: () => logs };
}

describe('npm start', () => {
  it('migrates, creates the demo household, prints a working key, and stops cleanly on Ctrl-C', async () => {
    const first = start();
    const banner = await first.banner;
    expect(banner).toContain('assistant: not available');
    const base = /running at (http:\/\/localhost:\d+)\/api\/v1/.exec(banner)![1]!;
    const key = /read_write API key:\s+([0-9a-f]{64})/.exec(banner)![1]!;
    expect((await readFile(path.join(dataDir, 'demo-api-key'), 'utf8')).trim()).toBe(key);
    // Every URL the banner prints answers 200; the one of the curl example with the key it shows.
    const printed = banner
      .split('\n')
      .flatMap((line) => (line.match(/http:\/\/localhost:\d+\S*/g) ?? []).map((url) => ({ url, line })));
    expect(printed.map(({ url }) => url.slice(base.length))).toEqual([
      '/api/v1',
      '/docs',
      '/api/v1/openapi.json',
      '/api/v1/transactions?per_page=5',
    ]);
    for (const { url, line } of printed) {
      const headers = line.includes('X-Api-Key') ? { 'x-api-key': key } : undefined;
      expect((await fetch(url, { headers })).status, url).toBe(200);
    }

    const list = await fetch(`${base}/api/v1/transactions?per_page=100`, { headers: { 'x-api-key': key } });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { data: { date: string }[]; meta: { total_count: number } };
    expect(body.meta.total_count).toBeGreaterThan(300);
    const dates = body.data.map((row) => row.date);
    expect(dates).toEqual([...dates].sort().reverse());
    expect((await fetch(`${base}/docs`)).status).toBe(200);

    // The worker inside npm start syncs the demo accounts: the brokerage's trades become holdings.
    const holdings = async () => {
      const response = await fetch(`${base}/api/v1/holdings`, { headers: { 'x-api-key': key } });
      return ((await response.json()) as { meta: { total_count: number } }).meta.total_count;
    };
    const deadline = Date.now() + 30_000;
    while ((await holdings()) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await holdings()).toBeGreaterThan(0);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    // Only JSON log lines on stdout, and the key in none of them.
    const lines = first.logs().trim().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(first.logs()).not.toContain(key);

    // A second start finds the household and prints the same key. With a model server configured,
    // the demo user may ask the assistant, and the worker inside npm start writes the reply.
    const model = await startModelTestServer();
    try {
      const second = start({ AI_BASE_URL: model.baseUrl, AI_MODEL: 'test-model' });
      const secondBanner = await second.banner;
      expect(secondBanner).toContain(key);
      expect(secondBanner).toMatch(/assistant: available, model test-model at 127\.0\.0\.1:\d+/);
      expect(await database.query('select count(*)::int as families from families')).toEqual([{ families: 1 }]);
      const secondBase = /running at (http:\/\/localhost:\d+)\/api\/v1/.exec(secondBanner)![1]!;
      model.script({ text: 'You have several accounts.' });
      const created = await fetch(`${secondBase}/api/v1/chats`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'What accounts do I have?' }),
      });
      expect(created.status).toBe(201);
      const chatId = ((await created.json()) as { data: { id: string } }).data.id;
      const reply = async () => {
        const response = await fetch(`${secondBase}/api/v1/chats/${chatId}`, { headers: { 'x-api-key': key } });
        return ((await response.json()) as { data: { messages: { status: string; content: string }[] } }).data
          .messages[1]!;
      };
      const replyDeadline = Date.now() + 30_000;
      while ((await reply()).status === 'pending' && Date.now() < replyDeadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await reply()).toMatchObject({ status: 'complete', content: 'You have several accounts.' });
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      await model.close();
    }
  });
});
