import { spawn, type ChildProcess } from 'node:child_process';

/** Resolves when `check` holds (checked as the state changes, every 50 ms), or fails after `ms`. */
export async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface WorkerProcess {
  process: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** `npm run worker` (its entry point, without npm in between, so signals reach it) on the given database. */
export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/worker-main.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', WORKER_POLL_INTERVAL_MS: '200', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
}
