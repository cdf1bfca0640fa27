import path from 'node:path';
import { allCodes, type ProblemCodeInfo } from '../service/problem.ts';
import { toDiagnostics, type LintResult } from './diagnostics.ts';

const levels = { error: 'error', warning: 'warning', information: 'note' } as const;

/** A file's path as a relative URI reference with forward slashes (absolute paths stay absolute). */
function toUri(file: string, cwd: string): string {
  const relative = path.isAbsolute(file) ? path.relative(cwd, file) : file;
  return encodeURI(relative.split(path.sep).join('/'));
}

/** SARIF 2.1.0: one run whose rules are the codes that occur, in order of first occurrence. */
export function formatSarif(results: readonly LintResult[], cwd: string = process.cwd()): string {
  const table: Record<string, ProblemCodeInfo> = allCodes;
  const ruleIndex = new Map<string, number>();
  const rules: { id: string; shortDescription: { text: string } }[] = [];
  const sarifResults = [];
  for (const result of results) {
    const uri = toUri(result.file, cwd);
    for (const d of toDiagnostics(result)) {
      let index = ruleIndex.get(d.code);
      if (index === undefined) {
        index = rules.length;
        ruleIndex.set(d.code, index);
        rules.push({ id: d.code, shortDescription: { text: table[d.code]?.meaning ?? d.code } });
      }
      sarifResults.push({
        ruleId: d.code,
        ruleIndex: index,
        level: levels[d.severity],
        message: { text: d.message },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri },
              region: { startLine: d.line, startColumn: d.column, endLine: d.endLine, endColumn: d.endColumn },
            },
          },
        ],
      });
    }
  }
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'blueprint-lint', rules } }, results: sarifResults }],
  };
  return JSON.stringify(log, null, 2);
}
