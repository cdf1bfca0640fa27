import { countProblems, toDiagnostics, type LintResult } from './diagnostics.ts';

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * ESLint-like: per file with problems a header and `  L:C  severity  message  code` rows (columns aligned),
 * then `✖ N problems (E errors, W warnings)`. Empty when there is no problem. Under a finding about
 * an enumerated value, a line lists the allowed values (`result.allowedValues`): a terminal has no
 * hover to show them.
 */
export function formatStylish(results: readonly LintResult[]): string {
  const out: string[] = [];
  for (const result of results) {
    const diagnostics = toDiagnostics(result);
    if (diagnostics.length === 0) continue;
    const rows = diagnostics.map((d) => [`${d.line}:${d.column}`, d.severity, d.message, d.code]);
    const widths = [0, 1, 2].map((i) => rows.reduce((widest, row) => Math.max(widest, row[i]!.length), 0));
    out.push(result.file);
    rows.forEach((row, at) => {
      out.push(`  ${row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`);
      const allowed = result.allowedValues?.get(result.problems[at]!);
      if (allowed) out.push(`  ${' '.repeat(widths[0]! + widths[1]! + 4)}allowed: ${allowed.join(', ')}`);
    });
    out.push('');
  }
  if (out.length === 0) return '';
  const counts = countProblems(results);
  const total = counts.errors + counts.warnings + counts.information;
  out.push(`✖ ${plural(total, 'problem')} (${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')})`);
  return out.join('\n');
}
