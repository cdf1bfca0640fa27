import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  limitProblems,
  MAX_PUBLISHED_PROBLEMS,
  type Problem,
  type Range as OffsetRange,
  type Severity,
} from '../service/problem.ts';

const severities: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
};

/** Offsets of the service (UTF-16 code units, like LSP positions) as an LSP range. */
export function toRange(document: Pick<TextDocument, 'positionAt'>, [start, end]: OffsetRange): Range {
  return { start: document.positionAt(start), end: document.positionAt(end) };
}

export function toOffsets(document: Pick<TextDocument, 'offsetAt'>, range: Range): OffsetRange {
  return [document.offsetAt(range.start), document.offsetAt(range.end)];
}

export function toDiagnostic(document: Pick<TextDocument, 'positionAt'>, found: Problem): Diagnostic {
  return {
    range: toRange(document, found.range),
    severity: severities[found.severity],
    code: found.code,
    source: 'blueprint',
    message: found.message,
  };
}

/** What an editor is sent for a document's problems: at most `MAX_PUBLISHED_PROBLEMS`, and a note of the rest. */
export function toDiagnostics(document: Pick<TextDocument, 'positionAt'>, problems: readonly Problem[]): Diagnostic[] {
  return limitProblems(problems, MAX_PUBLISHED_PROBLEMS).map((found) => toDiagnostic(document, found));
}
