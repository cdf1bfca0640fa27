import { MarkupKind, type HoverParams, type ServerCapabilities } from 'vscode-languageserver';
import { doHover } from '../../service/hover/hover.ts';
import { toRange } from '../convert.ts';
import type { HandlerContext } from './handler-context.ts';

/** `textDocument/hover`: the language service's Markdown, at the hovered text. */
export function registerHover(context: HandlerContext): ServerCapabilities {
  context.connection.onHover(
    context.safely('hover', null, async (params: HoverParams) => {
      const state = await context.stateOf(params.textDocument.uri);
      if (!state) return null;
      const offset = state.document.offsetAt(params.position);
      const found = doHover(state.root, offset, state.schema.service.index, state.text);
      if (!found) return null;
      return {
        contents: { kind: MarkupKind.Markdown, value: found.markdown },
        range: toRange(state.document, found.range),
      };
    }),
  );
  return { hoverProvider: true };
}
