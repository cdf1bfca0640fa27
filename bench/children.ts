import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ServedCounts {
  requests: number;
  statements: number;
}

export interface ChildServer {
  name: string;
  baseUrl: string;
  pid: number;
  /** Once no request is in flight: requests answered and statements sent to PostgreSQL so far (serve-child.ts). */
  counts(): Promise<ServedCounts>;
  /** Asks the child to stop (it exits normally, so a --cpu-prof profile gets written); kills it after 10 s. */
  stop(): Promise<void>;
}

/**
 * Runs bench/<script> in its own Node process (`node --import tsx`, plus `extraArgs` such as
 * --cpu-prof) and waits for it to report its port over IPC.
 */
export async function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  extraArgs: string[] = [],
): Promise<ChildServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    execArgv: [...extraArgs, '--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s`)), 60_000);
    child.on('message', (message: { ready?: boolean; port?: number }) => {
      if (message?.ready) {
        clearTimeout(timer);
        resolve(message.port!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready`));
    });
  });
  let stopped: Promise<void> | undefined;
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    counts() {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not report its counts`)), 15_000);
        const onMessage = (message: { type?: string } & ServedCounts) => {
          if (message?.type !== 'counts') return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve({ requests: message.requests, statements: message.statements });
        };
        child.on('message', onMessage);
        child.send({ type: 'counts' });
      });
    },
    stop() {
      stopped ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.send('stop');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
