import type { Problem, Severity } from '../service/problem.ts';
import { createLineIndex } from '../service/reading/text-document.ts';

/** What the linter checked in one file: its path as shown to the user, its text and its problems. */
export interface LintResult {
  file: string;
  text: string;
  problems: Problem[];
  /** The allowed values of enum findings whose message does not list them (cli/allowed-values.ts). */
  allowedValues?: ReadonlyMap<Problem, readonly string[]>;
}

/** One problem with 1-based line/column positions; the end column is exclusive (one past the last character). */
export interface Diagnostic {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  code: string;
  message: string;
}

export function toDiagnostics({ text, problems }: LintResult): Diagnostic[] {
  const lines = createLineIndex(text);
  return problems.map(({ range, severity, code, message }) => {
    const start = lines.positionAt(range[0]);
    const end = lines.positionAt(range[1]);
    return {
      line: start.line + 1,
      column: start.character + 1,
      endLine: end.line + 1,
      endColumn: end.character + 1,
      severity,
      code,
      message,
    };
  });
}

export interface Counts {
  errors: number;
  warnings: number;
  information: number;
}

export function countProblems(results: readonly LintResult[]): Counts {
  const counts: Counts = { errors: 0, warnings: 0, information: 0 };
  for (const { problems } of results) {
    for (const { severity } of problems) {
      if (severity === 'error') counts.errors++;
      else if (severity === 'warning') counts.warnings++;
      else counts.information++;
    }
  }
  return counts;
}
