import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 28, item 11: `npm start` (its prestart bundles the contract) and `npm test` run the
// Redocly CLI, which prints boxed notices on every run: that Node 20 is past its end of life, and
// that build-docs now renders with Redoc 3. Each Redocly step of the npm scripts runs here as the
// script says, writing into a temporary folder, and its output must hold no such box.
const scripts = (JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const redoclySteps = ['spec:lint', 'spec:bundle'].flatMap((name) =>
  scripts[name]!.split('&&')
    .map((step) => step.trim())
    .filter((step) => /redocly/.test(step)),
);

let output: string;
beforeAll(async () => {
  output = await mkdtemp(path.join(os.tmpdir(), 'spec-output-'));
});
afterAll(() => rm(output, { recursive: true, force: true }));

function run(command: string): Promise<{ code: number | null; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      env: { ...process.env, PATH: `${path.resolve('node_modules/.bin')}${path.delimiter}${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, text }));
  });
}

describe('the Redocly steps of the npm scripts', () => {
  it('are lint, bundle and build-docs', () => {
    expect(redoclySteps.map((step) => /redocly(?:\.ts)? (\S+)/.exec(step)?.[1])).toEqual([
      'lint',
      'bundle',
      'build-docs',
    ]);
  });

  it.each(redoclySteps)('%s prints no boxed notice', async (step) => {
    // Into the temporary folder, so the contract and docs the other tests read stay as they are.
    const command = step.replace(/ -o (\S+)/, (_, file: string) => ` -o ${path.join(output, path.basename(file))}`);
    const { code, text } = await run(command);
    expect(code, text).toBe(0);
    expect(text).not.toMatch(/[╔║╚]/);
    expect(text).not.toMatch(/end-of-life|Deprecation|Redoc 3/);
  });
});
