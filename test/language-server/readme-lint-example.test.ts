import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 28, item 13: the README's lint example works on a fresh clone. Its command runs as written
// (through a shell, so the quoted glob reaches the linter) on the examples the repository ships.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Lint blueprints'));
/** The first command of the section's shell block, without its comment. */
const command = /```sh\n(.*?)\s+#/.exec(section)![1]!;
/** The report the README shows for it. */
const shown = /```text\n([\s\S]*?)```/.exec(section)![1]!;

function run(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe("the README's blueprint-lint example", () => {
  it('names the shipped examples', () => {
    expect(command).toBe("npx --no-install blueprint-lint 'examples/blueprints/*.yaml'");
  });

  it('finds nothing in the correct example: exit 0, no output', async () => {
    const outcome = await run(command.replace('*.yaml', 'enrollment-flow.yaml'));
    expect(outcome).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('finds the five mistakes of the other, listing the allowed values of a short enumeration', async () => {
    const outcome = await run(command);
    expect(outcome.code).toBe(1);
    const rows = outcome.stdout.split('\n');
    // Only the file with mistakes has a header: the correct one has no finding.
    expect(rows.filter((row) => row.startsWith('examples/'))).toEqual([
      'examples/blueprints/enrollment-flow-mistakes.yaml',
    ]);
    const findings = rows.flatMap((row) => {
      const found = /^ {2}(\d+):\d+ +(error|warning) .* (\S+)$/.exec(row);
      return found ? [`${found[1]} ${found[2]} ${found[3]}`] : [];
    });
    expect(findings).toEqual([
      '13 warning field-unknown', // titel
      '14 error field-invalid', // enrolment
      '16 warning model-case', // AuthenticatorTotpStage
      '22 error field-invalid', // digits: 7
      '26 error keyof-unknown-id', // !KeyOf totp-stage
    ]);
    // `enrolment` gets a "did you mean"; all seven designations follow, as a terminal has no hover.
    expect(rows[rows.findIndex((row) => row.includes("'enrolment'")) + 1]!.trim()).toBe(
      'allowed: authentication, authorization, invalidation, enrollment, unenrollment, recovery, stage_configuration',
    );
    // `digits` lists its two values in the message already: no second list.
    expect(rows[rows.findIndex((row) => row.includes('digits must be one of: 6, 8.')) + 1]).not.toContain('allowed:');
    expect(outcome.stdout).toBe(shown);
  });
});
