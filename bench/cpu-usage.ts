import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU time per process group during a run, from /proc (Linux only; elsewhere the figures are
 * null): the benchmark's own processes by name (load generator, service, limit), PostgreSQL (the
 * postmaster, its backends and the parallel workers it reaped) and everything else on the machine.
 * "others" during a run is noise, e.g. another engineer's tests. CPU seconds per request tell
 * where the cost is on a machine whose 2 cores are saturated.
 */
const TICK = 100; // USER_HZ on Linux

function readStat(pid: number): { ppid: number; own: number; reaped: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state) of proc(5): ppid=4, utime=14, stime=15, cutime=16, cstime=17.
    const at = (field: number) => Number(fields[field - 3]);
    return { ppid: at(4), own: at(14) + at(15), reaped: at(16) + at(17) };
  } catch {
    return null;
  }
}

function machineBusyTicks(): number | null {
  try {
    const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
    const [, user, nice, system, , , irq, softirq, steal] = cpu!.trim().split(/\s+/).map(Number);
    return user! + nice! + system! + irq! + softirq! + steal!;
  } catch {
    return null;
  }
}

/** CPU seconds per group; null where /proc is not available. */
export type CpuFigures = Record<string, number | null>;

export class CpuSampler {
  constructor(
    private readonly groups: Record<string, () => number[]>,
    private readonly postmasterPid: number | null,
  ) {}

  private ticks(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, pids] of Object.entries(this.groups))
      out[name] = pids().reduce((sum, pid) => sum + (readStat(pid)?.own ?? 0), 0);
    let postgres = 0;
    if (this.postmasterPid) {
      const postmaster = readStat(this.postmasterPid);
      if (postmaster) postgres += postmaster.own + postmaster.reaped;
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        const stat = readStat(Number(entry));
        if (stat?.ppid === this.postmasterPid) postgres += stat.own;
      }
    }
    out.postgres = postgres;
    return out;
  }

  /** Starts counting; the returned function gives the CPU seconds per group since, and `others`. */
  start(): () => CpuFigures {
    const busy = machineBusyTicks();
    if (busy === null)
      return () => Object.fromEntries([...Object.keys(this.groups), 'postgres', 'others'].map((k) => [k, null]));
    const before = this.ticks();
    return () => {
      const busyDelta = machineBusyTicks()! - busy;
      const after = this.ticks();
      const out: CpuFigures = {};
      let ours = 0;
      for (const [name, ticks] of Object.entries(after)) {
        const delta = ticks - (before[name] ?? 0);
        ours += delta;
        out[name] = delta / TICK;
      }
      out.others = Math.max(0, busyDelta - ours) / TICK;
      return out;
    };
  }
}

/** The postmaster of the server a backend belongs to, when it runs on this machine. */
export function postmasterOf(backendPid: number): number | null {
  const ppid = readStat(backendPid)?.ppid;
  if (!ppid) return null;
  try {
    return readFileSync(`/proc/${ppid}/cmdline`, 'utf8').includes('postgres') ? ppid : null;
  } catch {
    return null;
  }
}
