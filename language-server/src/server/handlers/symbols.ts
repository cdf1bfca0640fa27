import {
  SymbolKind,
  type DocumentSymbol,
  type DocumentSymbolParams,
  type FoldingRange,
  type FoldingRangeParams,
  type ServerCapabilities,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  documentSymbols,
  type BlueprintSymbol,
  type BlueprintSymbolKind,
} from '../../service/symbols/document-symbols.ts';
import { foldingRanges } from '../../service/symbols/folding.ts';
import { toRange } from '../convert.ts';
import type { HandlerContext } from './handler-context.ts';

const symbolKinds: Record<BlueprintSymbolKind, SymbolKind> = {
  section: SymbolKind.Namespace,
  group: SymbolKind.Package,
  entry: SymbolKind.Object,
  key: SymbolKind.Property,
};

function toDocumentSymbol(document: TextDocument, symbol: BlueprintSymbol): DocumentSymbol {
  return {
    name: symbol.name,
    ...(symbol.detail === undefined ? {} : { detail: symbol.detail }),
    kind: symbolKinds[symbol.kind],
    range: toRange(document, symbol.range),
    selectionRange: toRange(document, symbol.selectionRange),
    children: symbol.children.map((child) => toDocumentSymbol(document, child)),
  };
}

/**
 * `textDocument/documentSymbol`: the hierarchical outline (sections, groups, entries), and
 * `textDocument/foldingRange`: line folds of sections, groups, entries and their nested blocks.
 */
export function registerSymbols(context: HandlerContext): ServerCapabilities {
  context.connection.onDocumentSymbol(
    context.safely('documentSymbol', [], async (params: DocumentSymbolParams) => {
      const state = await context.stateOf(params.textDocument.uri);
      if (!state) return [];
      return documentSymbols(state.root).map((symbol) => toDocumentSymbol(state.document, symbol));
    }),
  );
  context.connection.onFoldingRanges(
    context.safely('foldingRange', [], async (params: FoldingRangeParams): Promise<FoldingRange[]> => {
      const state = await context.stateOf(params.textDocument.uri);
      return state ? foldingRanges(state.root, state.text) : [];
    }),
  );
  return { documentSymbolProvider: { label: 'Blueprint' }, foldingRangeProvider: true };
}
