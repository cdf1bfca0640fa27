import type { FoldingRange, FoldingRangeParams, ServerCapabilities } from 'vscode-languageserver';
import { foldingRanges } from '../../service/symbols/folding.ts';
import type { FeatureContext } from './feature-context.ts';

/** `textDocument/foldingRange`: line folds of sections, groups, entries and their nested blocks. */
export function registerFolding(context: FeatureContext): ServerCapabilities {
  context.connection.onFoldingRanges(
    context.safely('foldingRange', [], async (params: FoldingRangeParams): Promise<FoldingRange[]> => {
      const state = await context.stateOf(params.textDocument.uri);
      return state ? foldingRanges(state.root, state.text) : [];
    }),
  );
  return { foldingRangeProvider: true };
}
