/**
 * CPU profile of the service under one benchmark scenario: seeds like api.bench.ts, runs
 * bench/service-server.ts with `node --cpu-prof`, loads it (2 s warm-up, 10 s, 50 connections),
 * stops it, prints the top functions by self time and the time per package, and deletes the
 * .cpuprofile. Usage: `npx tsx bench/profile.ts [list|filtered list|show|create ...]` (default: list);
 * `--limit` profiles the limit server instead; BENCH_PROFILE_TOP sets how many functions are listed (20). Writes bench/results/profile-<target>-<scenario>.txt.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CpuSampler } from './cpu-usage.ts';
import { measure } from './load.ts';
import { formatSummary, summarise } from './profile-top.ts';
import { deleteCreated, log, prepare, scenarios, startLimit, startService } from './setup.ts';

const args = process.argv.slice(2);
const target = args.includes('--limit') ? 'limit' : 'service';
const wanted = args.filter((arg) => !arg.startsWith('--'));
const names = wanted.length ? wanted : ['list'];

async function main(): Promise<void> {
  const context = await prepare();
  try {
    for (const name of names) {
      const scenario = scenarios(context).find((s) => s.name === name);
      if (!scenario) throw new Error(`no scenario "${name}"`);
      const directory = await mkdtemp(path.join(os.tmpdir(), 'finance-bench-prof-'));
      const start = target === 'limit' ? startLimit : startService;
      const server = await start(context, ['--cpu-prof', `--cpu-prof-dir=${directory}`]);
      let summary: string;
      try {
        log(`profiling ${target} under "${name}"`);
        const run = await measure(
          server.baseUrl,
          scenario,
          {
            connections: 50,
            durationSeconds: 10,
            warmupSeconds: 2,
            headers: { 'X-Api-Key': context.seed.key, 'Content-Type': 'application/json' },
          },
          new CpuSampler({ load_generator: () => [process.pid], [target]: () => [server.pid] }, context.postmasterPid),
        );
        await server.stop();
        if (name === 'create') await deleteCreated(context);
        const [file] = (await readdir(directory)).filter((f) => f.endsWith('.cpuprofile'));
        if (!file) throw new Error('no .cpuprofile was written');
        const profile = JSON.parse(await readFile(path.join(directory, file), 'utf8'));
        summary =
          `${target} under "${name}" (${scenario.description}): ${Math.round(run.requests_per_s_mean)} req/s, ` +
          `p50 ${run.latency_p50_ms} ms, p99 ${run.latency_p99_ms} ms, non-2xx ${run.non_2xx}\n` +
          `CPU ms per request: ${target} ${run.cpu_ms_per_request[target]}, postgres ${run.cpu_ms_per_request.postgres}, ` +
          `autocannon ${run.cpu_ms_per_request.load_generator}; CPU s used by other processes: ${run.cpu_s.others}\n` +
          `samples of the measured ${((run.window_us.to - run.window_us.from) / 1e6).toFixed(1)} s only ` +
          `(no start-up, no warm-up)\n\n${formatSummary(summarise(profile, Number(process.env.BENCH_PROFILE_TOP ?? 20), run.window_us), 'profile')}\n`;
      } finally {
        await server.stop();
        await rm(directory, { recursive: true, force: true });
      }
      process.stdout.write(`\n${summary}\n`);
      const out = fileURLToPath(
        new URL(`./results/profile-${target}-${name.replace(/\s+/g, '-')}.txt`, import.meta.url),
      );
      await writeFile(out, summary);
      log(`written ${out}`);
    }
  } finally {
    await context.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
