import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import type { CpuFigures, CpuSampler } from './cpu-usage.ts';

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
  /** CPU seconds during the measured run per process group (see cpu-usage.ts); `others` is noise. */
  cpu_s: CpuFigures;
  /** The same per request, in milliseconds. */
  cpu_ms_per_request: CpuFigures;
  /** The measured run on the monotonic clock, in microseconds (the clock of V8 CPU profiles). */
  window_us: { from: number; to: number };
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  headers: Record<string, string>;
}

/** One autocannon run of `duration` seconds (not recorded: `measure` records). */
export function run(
  baseUrl: string,
  scenario: Scenario,
  options: LoadOptions,
  duration: number,
): Promise<AutocannonResult> {
  return autocannon({
    url: baseUrl,
    connections: options.connections,
    duration,
    timeout: 10,
    headers: options.headers,
    requests: scenario.requests(),
  });
}

/** More figures of the measured run: `start` just before it, `stop` with its request count after it. */
export interface RunProbe<T> {
  start(): Promise<void>;
  stop(requests: number): Promise<T>;
}

/** A warm-up run (not recorded), then the measured run. */
export async function measure<T = never>(
  baseUrl: string,
  scenario: Scenario,
  options: LoadOptions,
  cpu?: CpuSampler,
  probe?: RunProbe<T>,
): Promise<RunFigures & { probed?: T }> {
  if (options.warmupSeconds > 0) await run(baseUrl, scenario, options, options.warmupSeconds);
  await probe?.start();
  const cpuSince = cpu?.start();
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = await run(baseUrl, scenario, options, options.durationSeconds);
  const to = Number(process.hrtime.bigint() / 1000n);
  const cpuFigures = cpuSince?.() ?? {};
  const probed = await probe?.stop(result.requests.total);
  const perRequest = Object.fromEntries(
    Object.entries(cpuFigures).map(([name, seconds]) => [
      name,
      seconds === null || !result.requests.total ? null : Math.round((seconds * 1e6) / result.requests.total) / 1000,
    ]),
  );
  return {
    requests_per_s_mean: result.requests.mean,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    latency_mean_ms: result.latency.mean,
    total_requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]),
    ),
    cpu_s: cpuFigures,
    cpu_ms_per_request: perRequest,
    window_us: { from, to },
    ...(probe ? { probed } : {}),
  };
}
