import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The project's blueprint fixtures; names containing `invalid` are the ones meant to fail. */
const FIXTURES = 'test/fixtures/blueprints';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx --no-install blueprint-lint ...args` from the repository root. */
function lint(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile('npx', ['--no-install', 'blueprint-lint', ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const CLEAN = 'version: 1\nmetadata:\n  name: clean\nentries: []\n';
const BROKEN = 'version: 999\nmetadata:\n  name: broken\nentries: []\n';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lint-'));
  mkdirSync(path.join(dir, 'nested/deeper'), { recursive: true });
  mkdirSync(path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'clean.yaml'), CLEAN);
  writeFileSync(path.join(dir, 'nested/deeper/broken.yaml'), BROKEN);
  writeFileSync(path.join(dir, 'node_modules/skipped.yaml'), BROKEN);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('blueprint-lint as a process', () => {
  it('exits 0 and prints nothing for a clean file', async () => {
    const run = await lint(path.join(dir, 'clean.yaml'));
    expect(run).toMatchObject({ code: 0, stdout: '' });
  });

  it('exits 1 on an error; a ** glob finds nested files and skips node_modules', async () => {
    const run = await lint('--format', 'json', `${dir}/**/*.yaml`);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { file: string; diagnostics: { code: string; severity: string }[] }[];
    expect(report.map((entry) => path.relative(dir, entry.file))).toEqual([
      'clean.yaml',
      path.join('nested', 'deeper', 'broken.yaml'),
    ]);
    expect(report[0]!.diagnostics).toEqual([]);
    expect(report[1]!.diagnostics).toMatchObject([{ code: 'version-unsupported', severity: 'error', line: 1 }]);
  });

  it.each([
    ['an unknown format', ['--format', 'nope', 'x.yaml'], /unknown format nope/],
    ['no files', [], /no files given/],
    ['a pattern matching nothing', ['no-such-dir/*.yaml'], /no files match no-such-dir\/\*\.yaml/],
    ['a missing schema', ['--schema', 'no-such-schema.json', 'package.json'], /cannot read schema no-such-schema/],
  ])('exits 2 on %s', async (_name, args, message) => {
    const run = await lint(...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('finds errors in exactly the invalid fixtures, given as a relative glob', async () => {
    const run = await lint('--format', 'json', `${FIXTURES}/*.yaml`);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { file: string; diagnostics: { code: string; severity: string }[] }[];
    const yamlFiles = readdirSync(path.join(ROOT, FIXTURES)).filter((name) => name.endsWith('.yaml'));
    expect(report.map((entry) => path.basename(entry.file)).sort()).toEqual(yamlFiles.sort());
    const errorCounts = Object.fromEntries(
      report
        .map((entry) => [path.basename(entry.file), entry.diagnostics.filter((d) => d.severity === 'error').length])
        .filter(([, errors]) => errors !== 0),
    );
    // One error per deliberate mistake (validate-corpus.test.ts lists them).
    expect(errorCounts).toEqual({
      'invalid-field-values.yaml': 6,
      'invalid-references.yaml': 10,
      'invalid-service-rules.yaml': 6,
      'invalid-version.yaml': 1,
    });
  });
});
