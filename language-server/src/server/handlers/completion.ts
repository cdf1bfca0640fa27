import {
  CompletionItemKind,
  InsertTextFormat,
  InsertTextMode,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type CompletionParams,
  type Range,
  type ServerCapabilities,
} from 'vscode-languageserver';
import type { CompletionEntry, CompletionKind } from '../../service/completion/completion-site.ts';
import { doComplete } from '../../service/completion/completion.ts';
import { toRange } from '../convert.ts';
import type { HandlerContext } from './handler-context.ts';

const kinds: Record<CompletionKind, CompletionItemKind> = {
  property: CompletionItemKind.Property,
  value: CompletionItemKind.EnumMember,
  model: CompletionItemKind.Class,
  tag: CompletionItemKind.Function,
  reference: CompletionItemKind.Reference,
  variable: CompletionItemKind.Variable,
  keyword: CompletionItemKind.Keyword,
  function: CompletionItemKind.Function,
};

/** VS Code's command to open completion again, e.g. after `model: ` is inserted; other clients ignore it. */
const triggerSuggest = { title: 'Suggest', command: 'editor.action.triggerSuggest' };

function toCompletionItem(entry: CompletionEntry, range: Range): CompletionItem {
  return {
    label: entry.label,
    kind: kinds[entry.kind],
    textEdit: { range, newText: entry.insertText },
    insertTextFormat: entry.snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
    // Inserted blocks carry their own indentation: the client must not add the line's again.
    insertTextMode: InsertTextMode.asIs,
    sortText: entry.sortText,
    ...(entry.detail ? { detail: entry.detail } : {}),
    ...(entry.documentation ? { documentation: { kind: MarkupKind.Markdown, value: entry.documentation } } : {}),
    ...(entry.retrigger ? { command: triggerSuggest } : {}),
  };
}

/** `textDocument/completion`: the language service's items, each replacing the word at the cursor. */
export function registerCompletion(context: HandlerContext): ServerCapabilities {
  context.connection.onCompletion(
    context.safely('completion', null, async (params: CompletionParams): Promise<CompletionList | null> => {
      const state = await context.stateOf(params.textDocument.uri);
      if (!state) return null;
      const offset = state.document.offsetAt(params.position);
      const result = doComplete(state.text, state.root, offset, state.schema.service.index);
      const range = toRange(state.document, result.range);
      return { isIncomplete: result.incomplete, items: result.items.map((entry) => toCompletionItem(entry, range)) };
    }),
  );
  // ' ' after `key:` or `!KeyOf`, ':' right after a key, '!' for tags, '-' for a new item, '[' and ',' in tag arguments.
  return { completionProvider: { triggerCharacters: [' ', ':', '!', '-', '[', ','] } };
}
