import { entryAt, listEntries, type EntryRef } from '../reading/blueprint-entries.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import type { JsonObject, ModelInfo, SchemaIndex } from '../schema/schema-index.ts';
import type { CompletionContext, ContextStep } from './completion-context.ts';
import { childSchemas } from './completion-schema.ts';

/** What an item completes, for the client's icon. */
export type CompletionKind =
  /** A mapping key: top-level, entry and field keys, labels. */
  | 'property'
  /** A scalar value from the schema: an enum member, a constant, a default. */
  | 'value'
  /** A model name (`<app>.<model>`). */
  | 'model'
  /** One of the blueprint tags. */
  | 'tag'
  /** The id of an earlier entry, for `!KeyOf`. */
  | 'reference'
  /** A key of the blueprint's `context`; a name an expression sees (`request`). */
  | 'variable'
  /** A fixed word: true/false, a `!Condition` mode, SEQ/MAP. */
  | 'keyword'
  /** A function an expression can call (`ak_user_by`). */
  | 'function';

export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  /** The text that replaces the result's range. */
  insertText: string;
  /** `insertText` is a snippet (`$1`, `${1:placeholder}`, `${1|a,b|}`, `$0`). */
  snippet: boolean;
  detail?: string;
  /** Markdown. */
  documentation?: string;
  /** Orders the items as the service ranks them (the client filters by label). */
  sortText: string;
  /** After inserting, completion is useful again at once (a key followed by `: `). */
  retrigger?: boolean;
}

/** An item before `doComplete` ranks it. */
export type Draft = Omit<CompletionEntry, 'sortText'>;

/** What the item builders share: the document, the schema and the cursor's place in both. */
export interface Site {
  text: string;
  root: BNode | undefined;
  index: SchemaIndex;
  context: CompletionContext;
}

export const stepName = (step: ContextStep | undefined): string | undefined =>
  step?.kind === 'key' ? step.name : undefined;

/** Where the path steps into an entry: an item of `entries`, or of one of its named groups; -1 if it does not. */
export function entryStep(path: readonly ContextStep[]): number {
  if (stepName(path[0]) !== 'entries') return -1;
  if (path[1]?.kind === 'item') return 1;
  return path[1]?.kind === 'key' && path[2]?.kind === 'item' ? 2 : -1;
}

/** The entry holding the cursor per the tree, found from where the text says its item starts. */
export function cursorEntry(site: Site, entries: readonly EntryRef[]): EntryRef | undefined {
  const step = site.context.path[entryStep(site.context.path)];
  return step?.kind === 'item' ? entryAt(entries, step.start) : undefined;
}

function modelOf(site: Site): ModelInfo | undefined {
  const name = cursorEntry(site, listEntries(site.root))?.model;
  return name === undefined ? undefined : site.index.lookupModel(name).model;
}

/**
 * The schemas of the node at the cursor's path. In an entry, the branch of its model; without a
 * known model, every branch, as far as they agree (the entry's keys and `state`, not its fields).
 */
export function schemaAt(site: Site): JsonObject[] {
  const { path } = site.context;
  const entry = entryStep(path);
  const model = entry >= 0 ? modelOf(site) : undefined;
  let schemas: JsonObject[] = [site.index.root];
  path.forEach((step, at) => {
    if (at === entry && model) schemas = [model.entry];
    else schemas = childSchemas(site.index, schemas, step);
    if (entry >= 0 && at > entry && !model && new Set(schemas.map((schema) => JSON.stringify(schema))).size > 1) {
      schemas = [];
    }
  });
  return schemas;
}
