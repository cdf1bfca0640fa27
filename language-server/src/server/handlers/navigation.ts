import { ResponseError, type Location, type ServerCapabilities, type WorkspaceEdit } from 'vscode-languageserver';
import { findDefinition, findReferences, prepareRename, renameId } from '../../service/navigation/navigation.ts';
import { toRange } from '../convert.ts';
import type { HandlerContext } from './handler-context.ts';

/** Go to definition (`!KeyOf x` -> `id: x`), references and rename of entry ids. */
export function registerNavigation(context: HandlerContext): ServerCapabilities {
  const { connection, safely, stateOf } = context;

  connection.onDefinition(
    safely('definition', null, async ({ textDocument, position }): Promise<Location | null> => {
      const state = await stateOf(textDocument.uri);
      if (!state) return null;
      const found = findDefinition(state.text, state.root, state.document.offsetAt(position));
      return found ? { uri: textDocument.uri, range: toRange(state.document, found.idRange) } : null;
    }),
  );

  connection.onReferences(
    safely('references', [], async ({ textDocument, position, context: options }): Promise<Location[]> => {
      const state = await stateOf(textDocument.uri);
      if (!state) return [];
      const offset = state.document.offsetAt(position);
      return findReferences(state.text, state.root, offset, options.includeDeclaration).map((range) => ({
        uri: textDocument.uri,
        range: toRange(state.document, range),
      }));
    }),
  );

  connection.onPrepareRename(
    safely('prepareRename', null, async ({ textDocument, position }) => {
      const state = await stateOf(textDocument.uri);
      if (!state) return null;
      const found = prepareRename(state.text, state.root, state.document.offsetAt(position));
      return found ? { range: toRange(state.document, found.range), placeholder: found.placeholder } : null;
    }),
  );

  // A refused rename is an answer, not a failure: it reaches the author as the request's error.
  connection.onRenameRequest(
    async ({ textDocument, position, newName }): Promise<WorkspaceEdit | null | ResponseError> => {
      const rename = safely('rename', null as WorkspaceEdit | null | ResponseError, async () => {
        const state = await stateOf(textDocument.uri);
        if (!state) return null;
        const result = renameId(state.text, state.root, state.document.offsetAt(position), newName);
        if ('error' in result) return new ResponseError(-32803 /* RequestFailed */, result.error);
        const edits = result.edits.map((edit) => ({
          range: toRange(state.document, edit.range),
          newText: edit.newText,
        }));
        return { changes: { [textDocument.uri]: edits } };
      });
      return rename(undefined);
    },
  );

  return { definitionProvider: true, referencesProvider: true, renameProvider: { prepareProvider: true } };
}
