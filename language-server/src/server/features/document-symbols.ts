import {
  SymbolKind,
  type DocumentSymbol,
  type DocumentSymbolParams,
  type ServerCapabilities,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  documentSymbols,
  type BlueprintSymbol,
  type BlueprintSymbolKind,
} from '../../service/symbols/document-symbols.ts';
import { toRange } from '../convert.ts';
import type { FeatureContext } from './feature-context.ts';

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

/** `textDocument/documentSymbol`: the hierarchical outline (sections, groups, entries). */
export function registerDocumentSymbols(context: FeatureContext): ServerCapabilities {
  context.connection.onDocumentSymbol(
    context.safely('documentSymbol', [], async (params: DocumentSymbolParams) => {
      const state = await context.stateOf(params.textDocument.uri);
      if (!state) return [];
      return documentSymbols(state.root).map((symbol) => toDocumentSymbol(state.document, symbol));
    }),
  );
  return { documentSymbolProvider: { label: 'Blueprint' } };
}
