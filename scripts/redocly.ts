/**
 * `redocly <arguments>` as the npm scripts run it: the Redocly CLI of node_modules with its output
 * passed through NoticeFilter (scripts/redocly/notice-filter.ts), so the boxed notices it prints on
 * every run never reach the terminal. The exit code is the CLI's.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { NoticeFilter } from './redocly/notice-filter.ts';

const CLI = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

const child = spawn(process.execPath, [CLI, ...process.argv.slice(2)], {
  stdio: ['inherit', 'pipe', 'pipe'],
  // Piped output loses the CLI's colours; a terminal on our side keeps them.
  env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
});
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
] as const) {
  const filter = new NoticeFilter((text) => to.write(text));
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => filter.push(chunk));
  from.on('end', () => filter.end());
}
child.on('close', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
