import { CodeActionKind, type CodeAction, type ServerCapabilities } from 'vscode-languageserver';
import { quickFixes } from '../../service/code-actions/quick-fixes.ts';
import { toDiagnostic, toOffsets, toRange } from '../convert.ts';
import type { HandlerContext } from './handler-context.ts';

/** Quick fixes for the problems in the requested range (did-you-mean, quoting, lowercasing, identifiers). */
export function registerCodeActions(context: HandlerContext): ServerCapabilities {
  const { connection, safely, problemsOf, documentOf } = context;
  connection.onCodeAction(
    safely('codeAction', [], async ({ textDocument, range }): Promise<CodeAction[]> => {
      const document = documentOf(textDocument.uri);
      const problems = await problemsOf(textDocument.uri);
      if (!document || !problems) return [];
      return quickFixes(document.getText(), problems, toOffsets(document, range)).map((fix) => ({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [toDiagnostic(document, fix.problem)],
        isPreferred: fix.preferred,
        edit: {
          changes: {
            [textDocument.uri]: fix.edits.map((edit) => ({
              range: toRange(document, edit.range),
              newText: edit.newText,
            })),
          },
        },
      }));
    }),
  );
  return { codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] } };
}
