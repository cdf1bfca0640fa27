import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../language-server/src/cli.ts';
import type { LintResult } from '../../language-server/src/cli/diagnostics.ts';
import { escapeData, escapeProperty, formatGithub } from '../../language-server/src/cli/format-github.ts';
import { formatJson } from '../../language-server/src/cli/format-json.ts';
import { formatSarif } from '../../language-server/src/cli/format-sarif.ts';
import { formatStylish } from '../../language-server/src/cli/format-stylish.ts';

const text = 'version: 2\nentries:\n  - model: x\nlast';
const results: LintResult[] = [
  {
    file: 'dir/a.yaml',
    text,
    problems: [
      { range: [0, 7], severity: 'error', code: 'top-unknown-key', message: 'at offset 0' },
      { range: [24, 33], severity: 'warning', code: 'model-case', message: 'spans lines 3-4' },
      { range: [text.length - 4, text.length], severity: 'information', code: 'yaml-warning', message: 'last line' },
    ],
  },
  { file: 'dir/clean.yaml', text: 'version: 1\n', problems: [] },
];

describe('formatJson', () => {
  it('reports 1-based positions per file, including offset 0 and the last line', () => {
    const parsed = JSON.parse(formatJson(results)) as unknown;
    expect(parsed).toEqual([
      {
        file: 'dir/a.yaml',
        diagnostics: [
          {
            line: 1,
            column: 1,
            endLine: 1,
            endColumn: 8,
            severity: 'error',
            code: 'top-unknown-key',
            message: 'at offset 0',
          },
          {
            line: 3,
            column: 5,
            endLine: 4,
            endColumn: 1,
            severity: 'warning',
            code: 'model-case',
            message: 'spans lines 3-4',
          },
          {
            line: 4,
            column: 1,
            endLine: 4,
            endColumn: 5,
            severity: 'information',
            code: 'yaml-warning',
            message: 'last line',
          },
        ],
      },
      { file: 'dir/clean.yaml', diagnostics: [] },
    ]);
  });
});

describe('formatGithub', () => {
  it('escapes data and properties as GitHub documents', () => {
    expect(escapeData('50% a\r\nb: c, d')).toBe('50%25 a%0D%0Ab: c, d');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });

  it('prints one annotation per problem, information as notice', () => {
    const lines = formatGithub([
      {
        file: 'we,ird:name.yaml',
        text: 'a\nb',
        problems: [
          { range: [2, 3], severity: 'error', code: 'c', message: 'x\ny 100%' },
          { range: [0, 1], severity: 'warning', code: 'w', message: 'm' },
          { range: [0, 1], severity: 'information', code: 'i', message: 'n' },
        ],
      },
    ]).split('\n');
    expect(lines).toEqual([
      '::error file=we%2Cird%3Aname.yaml,line=2,col=1,endLine=2,endColumn=2,title=c::x%0Ay 100%25',
      '::warning file=we%2Cird%3Aname.yaml,line=1,col=1,endLine=1,endColumn=2,title=w::m',
      '::notice file=we%2Cird%3Aname.yaml,line=1,col=1,endLine=1,endColumn=2,title=i::n',
    ]);
    expect(formatGithub([])).toBe('');
  });
});

describe('formatSarif', () => {
  it('is SARIF 2.1.0 with the occurring codes as rules and located results', () => {
    const log = JSON.parse(formatSarif(results, '/repo')) as {
      version: string;
      runs: {
        tool: { driver: { name: string; rules: { id: string; shortDescription: { text: string } }[] } };
        results: {
          ruleId: string;
          level: string;
          message: { text: string };
          locations: { physicalLocation: { artifactLocation: { uri: string }; region: Record<string, number> } }[];
        }[];
      }[];
    };
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    const run = log.runs[0]!;
    expect(run.tool.driver.name).toBe('blueprint-lint');
    expect(run.tool.driver.rules.map((rule) => rule.id)).toEqual(['top-unknown-key', 'model-case', 'yaml-warning']);
    expect(run.tool.driver.rules[0]!.shortDescription.text).toBe('A top-level key the schema does not define.');
    expect(run.results.map((result) => [result.ruleId, result.level])).toEqual([
      ['top-unknown-key', 'error'],
      ['model-case', 'warning'],
      ['yaml-warning', 'note'],
    ]);
    expect(run.results[1]!.message.text).toBe('spans lines 3-4');
    expect(run.results[1]!.locations[0]!.physicalLocation).toEqual({
      artifactLocation: { uri: 'dir/a.yaml' },
      region: { startLine: 3, startColumn: 5, endLine: 4, endColumn: 1 },
    });
  });

  it('makes absolute paths relative to the working directory', () => {
    const log = JSON.parse(
      formatSarif([{ file: '/repo/b c.yaml', text: 'x', problems: [results[0]!.problems[0]!] }], '/repo'),
    ) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] };
    expect(log.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe('b%20c.yaml');
  });
});

describe('formatStylish', () => {
  it('prints a header and aligned rows per file, then the summary', () => {
    expect(formatStylish(results).split('\n')).toEqual([
      'dir/a.yaml',
      '  1:1  error        at offset 0      top-unknown-key',
      '  3:5  warning      spans lines 3-4  model-case',
      '  4:1  information  last line        yaml-warning',
      '',
      '✖ 3 problems (1 error, 1 warning)',
    ]);
  });

  it('prints nothing when every file is clean', () => {
    expect(formatStylish([results[1]!])).toBe('');
  });
});

describe('the stylish report of blueprint-lint', () => {
  it('lists the allowed values under an enum finding that does not show them all, up to ten', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lint-enums-'));
    try {
      const file = path.join(dir, 'enums.yaml');
      const entry = (model: string, field: string, value: string) =>
        `  - model: ${model}\n    identifiers:\n      name: x\n    attrs:\n      ${field}: ${value}\n`;
      writeFileSync(
        file,
        'version: 1\nmetadata:\n  name: enums\nentries:\n' +
          entry('idp_providers_saml.samlprovider', 'signature_algorithm', 'rsa') + // 9 values, the first 5 shown
          entry('idp_stages_prompt.prompt', 'type', 'nothing-like-it') + // 18 values: too many to list
          entry('idp_stages_authenticator_totp.authenticatortotpstage', 'digits', '7'), // 2, all in the message
      );
      let output = '';
      const code = main([file], { write: (text: string) => (output += text) } as never, process.stderr);
      expect(code).toBe(1);
      const allowed = output.split('\n').filter((line) => line.trim().startsWith('allowed:'));
      expect(allowed).toHaveLength(1);
      expect(allowed[0]!.trim().split(', ')).toHaveLength(9);
      expect(allowed[0]).toContain('http://www.w3.org/2000/09/xmldsig#dsa-sha1');
      // Only the stylish report: the machine formats keep the problems as the service gives them.
      let json = '';
      main(['--format', 'json', file], { write: (text: string) => (json += text) } as never, process.stderr);
      expect(json).not.toContain('allowed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
