import type { ServerCapabilities } from 'vscode-languageserver';
import { registerBlueprintRequests } from './blueprint-requests.ts';
import { registerCodeActions } from './code-actions.ts';
import { registerCompletion } from './completion.ts';
import type { HandlerContext } from './handler-context.ts';
import { registerHover } from './hover.ts';
import { registerNavigation } from './navigation.ts';
import { registerSymbols } from './symbols.ts';

/**
 * The request handlers of each LSP area, each registered through `context.safely`. Documents,
 * diagnostics and configuration are set up before them (`server.ts`): the others depend on them.
 */
const registrations: readonly ((context: HandlerContext) => ServerCapabilities)[] = [
  registerNavigation,
  registerCodeActions,
  registerHover,
  registerSymbols,
  registerCompletion,
  registerBlueprintRequests,
];

/** Registers every area's handlers; returns the capabilities they add. */
export function registerHandlers(context: HandlerContext): ServerCapabilities {
  return Object.assign({}, ...registrations.map((register) => register(context))) as ServerCapabilities;
}
