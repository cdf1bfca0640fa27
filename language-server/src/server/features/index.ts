import type { ServerCapabilities } from 'vscode-languageserver';
import { registerCodeActions } from './code-actions.ts';
import { registerCompletion } from './completion.ts';
import { registerDocumentSymbols } from './document-symbols.ts';
import type { FeatureContext } from './feature-context.ts';
import { registerFolding } from './folding.ts';
import { registerHover } from './hover.ts';
import { registerNavigation } from './navigation.ts';

/** Registers every feature's handlers; returns the capabilities they add. */
export function registerFeatures(context: FeatureContext): ServerCapabilities {
  const registrations: ((context: FeatureContext) => ServerCapabilities)[] = [
    registerNavigation,
    registerCodeActions,
    registerHover,
    registerDocumentSymbols,
    registerFolding,
    registerCompletion,
  ];
  return Object.assign({}, ...registrations.map((register) => register(context))) as ServerCapabilities;
}
