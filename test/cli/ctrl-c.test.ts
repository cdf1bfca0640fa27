import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';

// Issue 28, item 11: `npm start` with its embedded PostgreSQL, stopped as a person stops it:
// Ctrl-C, which the terminal sends to every process of the foreground group (npm, tsx, the
// service and, unless it has a group of its own, PostgreSQL).
let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess({}, { npmStart: true });
});
afterAll(() => service?.stop());

describe('Ctrl-C on npm start', () => {
  it('stops with one "stopped" line, nothing at warn level or above, and the database shut down', async () => {
    const listed = await fetch(`${service.baseUrl}/api/v1/accounts`, { headers: { 'x-api-key': service.key } });
    expect(listed.status).toBe(200);
    await service.interrupt();

    const records: { level: number; msg: string }[] = [];
    const text: string[] = [];
    for (const line of service.logs().split('\n')) {
      try {
        records.push(JSON.parse(line) as { level: number; msg: string });
      } catch {
        text.push(line);
      }
    }
    // pino levels: 40 warn, 50 error, 60 fatal.
    expect(records.filter((record) => record.level >= 40)).toEqual([]);
    expect(records.filter((record) => record.msg === 'stopped')).toHaveLength(1);
    expect(records.map((record) => record.msg).at(-1)).toBe('stopped');
    // Besides the JSON log, only npm's lines and the banner; no warning from any library.
    expect(text.filter((line) => /warn|error|fail|deprecat/i.test(line))).toEqual([]);
    expect(records.filter((record) => /warn|error|fail|deprecat/i.test(record.msg))).toEqual([]);
    // PostgreSQL was stopped by the service, not left running or killed: it removes its pid file
    // only on a clean shutdown.
    expect(existsSync(path.join(service.clusterDir, 'postmaster.pid'))).toBe(false);
  });
});
