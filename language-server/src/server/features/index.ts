import type { ServerCapabilities } from 'vscode-languageserver';
import type { FeatureContext } from './feature-context.ts';

/** Registers every feature's handlers; returns the capabilities they add. */
export function registerFeatures(context: FeatureContext): ServerCapabilities {
  const registrations: ((context: FeatureContext) => ServerCapabilities)[] = [];
  return Object.assign({}, ...registrations.map((register) => register(context))) as ServerCapabilities;
}
