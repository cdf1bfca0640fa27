import { toDiagnostics, type LintResult } from './diagnostics.ts';

/** Escapes a workflow-command message (https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts). */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow-command property value: as data, plus `:` and `,`. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const commands = { error: 'error', warning: 'warning', information: 'notice' } as const;

/** GitHub Actions workflow annotations, one line per problem. */
export function formatGithub(results: readonly LintResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    for (const d of toDiagnostics(result)) {
      const properties = [
        `file=${escapeProperty(result.file)}`,
        `line=${d.line}`,
        `col=${d.column}`,
        `endLine=${d.endLine}`,
        `endColumn=${d.endColumn}`,
        `title=${escapeProperty(d.code)}`,
      ].join(',');
      lines.push(`::${commands[d.severity]} ${properties}::${escapeData(d.message)}`);
    }
  }
  return lines.join('\n');
}
