import { readdirSync } from 'node:fs';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import type pg from 'pg';
import type { Logger } from 'pino';

/**
 * Background work yields the CPU to requests (docs/faults.md#background-work-yields): the worker's
 * process and, when the database runs on this host, the PostgreSQL backends of its connections run
 * at a higher niceness (WORKER_NICENESS). An idle machine gives them all of it; a busy one serves
 * requests first, so ten large imports cannot push another family's reads past their idle latency.
 */

/**
 * The worker process itself, when it runs alone (`npm run worker`); not inside `npm start`, whose
 * requests it would slow. Linux keeps a niceness per thread: the threads V8 started before this
 * call (its garbage collector's helpers) are lowered one by one, or a collection of the worker's
 * heap still took both cores from requests for 40 ms at a time. Threads started later inherit it.
 */
export function lowerProcessPriority(niceness: number, logger: Logger | undefined): void {
  if (niceness <= 0) return;
  try {
    os.setPriority(Math.max(os.getPriority(), niceness));
  } catch (error) {
    logger?.info({ err: error }, 'the worker runs at normal CPU priority: its niceness cannot be set');
    return;
  }
  let threads: string[] = [];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    // Not Linux: one niceness per process, already set.
  }
  for (const thread of threads) {
    try {
      os.setPriority(Number(thread), Math.max(os.getPriority(Number(thread)), niceness));
    } catch {
      // A thread that has ended since the listing.
    }
  }
}

/**
 * Whether `pid` on this host is the backend serving `client`. PostgreSQL titles a backend
 * `postgres: user database address(port) ...`: over TCP the title carries our socket's local port;
 * over a Unix socket (`[local]`) the backend works in the cluster's data directory, which a
 * superuser connection (the embedded database's) can read. A remote database, whose pid means
 * nothing here, never matches.
 */
async function isOurBackend(client: pg.Client, pid: number): Promise<boolean> {
  let title: string;
  try {
    title = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\u0000', ' ');
  } catch {
    return false;
  }
  if (!title.startsWith('postgres: ')) return false;
  // pg keeps its socket here; a Unix socket has no local port.
  const port = (client as unknown as { connection?: { stream?: { localPort?: number } } }).connection?.stream
    ?.localPort;
  if (port) return title.includes(`(${port}) `);
  if (!title.includes(' [local] ')) return false;
  try {
    const { rows } = await client.query<{ directory: string }>(`select current_setting('data_directory') as directory`);
    const [cwd, directory] = await Promise.all([realpath(`/proc/${pid}/cwd`), realpath(rows[0]!.directory)]);
    return cwd === directory;
  } catch {
    return false;
  }
}

/**
 * Raises the niceness of the backend behind a job connection, when that backend is a process of
 * this host that we may renice; otherwise nothing happens (the work still runs, at normal priority).
 */
export async function lowerBackendPriority(client: pg.Client, niceness: number): Promise<boolean> {
  if (niceness <= 0) return false;
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const pid = rows[0]?.pid;
  if (!pid || !(await isOurBackend(client, pid))) return false;
  await lowerOwnAutogroup(pid, niceness);
  try {
    os.setPriority(pid, Math.max(os.getPriority(pid), niceness));
    return true;
  } catch {
    return false;
  }
}

/**
 * Linux with autogroups (`/proc/sys/kernel/sched_autogroup_enabled`) shares the CPU between
 * sessions first and applies a process's niceness only among its own session's processes. Every
 * PostgreSQL backend leads a session of its own, so a reniced backend still got an equal share
 * against each request's backend: the group's niceness (`/proc/<pid>/autogroup`) is what counts.
 * Written only when the backend leads its session, never to a group it shares with its parent.
 */
async function lowerOwnAutogroup(pid: number, niceness: number): Promise<void> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command: state, ppid, pgrp, session.
    const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
    if (session !== pid) return;
    const current = Number(/ nice (-?\d+)/.exec(await readFile(`/proc/${pid}/autogroup`, 'utf8'))?.[1]);
    if (!(current < niceness)) return;
    // Without CAP_SYS_ADMIN the kernel takes one such write per 100 ms, machine-wide (EAGAIN).
    for (let attempt = 1; ; attempt++) {
      try {
        return await writeFile(`/proc/${pid}/autogroup`, String(niceness));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || attempt === 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 50));
      }
    }
  } catch {
    // No autogroups in this kernel, or not ours to change: the process's niceness is all there is.
  }
}
