/**
 * `npm run bench:restart`: how long the service is unavailable across a database restart. Runs
 * `npm start`'s entry on its own embedded PostgreSQL, one client reading the account list as fast
 * as answers come, and (1) kills an active backend (PostgreSQL's crash recovery), (2) kills the
 * postmaster (npm start starts it again). Prints, per fault, the time from the kill until PostgreSQL
 * accepts connections, until the last answer that was not a 200 and until the first 200 after that
 * (the outage as a client sees it: PostgreSQL takes a moment to notice a kill, and requests answered
 * meanwhile are served), and the answers meanwhile. Prints a Markdown table; the dated results
 * live in bench/README.md.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startServiceProcess } from '../test/support/service-process.ts';
import { machineInfo } from './machine.ts';

const RUNS = 3;

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const fault of ['backend', 'postmaster'] as const) {
    for (let run = 0; run < RUNS; run++) {
      const service = await startServiceProcess({ LOG_LEVEL: 'warn', RATE_LIMIT_PER_ADDRESS: '0' });
      const admin = await service.connect();
      let outageFrom = 0;
      let databaseBack = 0;
      /** When the last answer other than 200 came, and the first 200 after it (or after the kill). */
      let lastRefused = 0;
      let servedAgain = 0;
      let unavailable = 0;
      let other = 0;
      let running = true;
      const reader = (async () => {
        while (running) {
          const response = await fetch(`${service.baseUrl}/api/v1/accounts`, {
            headers: { 'x-api-key': service.key },
          }).catch(() => undefined);
          await response?.arrayBuffer();
          const at = performance.now();
          if (!outageFrom) continue;
          if (response?.status === 200) {
            if (!servedAgain) servedAgain = at;
            continue;
          }
          if (response?.status === 503) unavailable++;
          else other++;
          lastRefused = at;
          servedAgain = 0;
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const victim =
        fault === 'backend'
          ? (
              await admin.query<{ pid: number }>(
                `select pid from pg_stat_activity where datname = 'finance' and backend_type = 'client backend'
                   and pid <> pg_backend_pid() order by pid limit 1`,
              )
            ).rows[0]!.pid
          : Number((await readFile(path.join(service.clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      await admin.end().catch(() => undefined);
      outageFrom = performance.now();
      process.kill(victim, 'SIGKILL');
      // When PostgreSQL itself accepts connections again: the service's own share is what follows.
      await (await service.connect()).end();
      databaseBack = performance.now();
      // Served again, and with no refusal for a second since then and since PostgreSQL came back.
      const settled = () => servedAgain && performance.now() - Math.max(servedAgain, databaseBack) > 1000;
      while (!settled() && performance.now() - outageFrom < 120_000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      running = false;
      await reader;
      const since = (at: number) => (at ? Math.round(at - outageFrom) : '-');
      rows.push(
        `| ${fault} | ${run + 1} | ${since(databaseBack)} | ${since(lastRefused)} | ${since(servedAgain)} | ${unavailable} | ${other} | ${service.child.exitCode === null ? 'yes' : 'no'} |`,
      );
      await service.stop();
    }
  }
  console.log(JSON.stringify(machineInfo()));
  console.log(
    '| killed | run | ms until PostgreSQL accepts | ms until the last refusal | ms until served again | 503 answers | other answers | service alive |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
}

await main();
