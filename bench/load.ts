import os from 'node:os';
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';

/** One kind of request the benchmark sends, to either server. */
export interface Scenario {
  name: string;
  /** What is sent, for the report. */
  description: string;
  /** Fresh request list per run (setupRequest closures keep their own counters). */
  requests(): AutocannonRequest[];
}

export interface RunFigures {
  requests_per_s_mean: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_mean_ms: number;
  total_requests: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
  /** 1-minute load average before and after the run: a hint of other work on the machine. */
  loadavg_before: number;
  loadavg_after: number;
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  headers: Record<string, string>;
}

function run(baseUrl: string, scenario: Scenario, options: LoadOptions, duration: number): Promise<AutocannonResult> {
  return autocannon({
    url: baseUrl,
    connections: options.connections,
    duration,
    timeout: 10,
    headers: options.headers,
    requests: scenario.requests(),
  });
}

/** A warm-up run (not recorded), then the measured run. */
export async function measure(baseUrl: string, scenario: Scenario, options: LoadOptions): Promise<RunFigures> {
  if (options.warmupSeconds > 0) await run(baseUrl, scenario, options, options.warmupSeconds);
  const loadBefore = os.loadavg()[0]!;
  const result = await run(baseUrl, scenario, options, options.durationSeconds);
  return {
    requests_per_s_mean: result.requests.mean,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    latency_mean_ms: result.latency.mean,
    total_requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
    loadavg_before: Math.round(loadBefore * 100) / 100,
    loadavg_after: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

/** Cycles through `paths`, one per request. */
export function rotating(paths: string[], extra: Omit<AutocannonRequest, 'path' | 'setupRequest'> = {}): AutocannonRequest[] {
  let next = 0;
  return [{ ...extra, setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }];
}
