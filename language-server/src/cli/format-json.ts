import { toDiagnostics, type LintResult } from './diagnostics.ts';

/** `[{ file, diagnostics: [{ line, column, endLine, endColumn, severity, code, message }] }]`, one entry per file. */
export function formatJson(results: readonly LintResult[]): string {
  return JSON.stringify(
    results.map((result) => ({ file: result.file, diagnostics: toDiagnostics(result) })),
    null,
    2,
  );
}
