import type { Range } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import type { SchemaIndex } from '../schema/schema-index.ts';
import { completionContext } from './completion-context.ts';
import { expressionCompletion } from './expression-items.ts';
import { isObjectSchema } from './completion-schema.ts';
import { entryStep, schemaAt, stepName, type CompletionEntry, type Draft, type Site } from './completion-site.ts';
import { keyItems, labelItems } from './key-items.ts';
import { contextKeyItems, entryIdItems, tagArgumentItems, tagItems } from './tag-items.ts';
import { modelItems, valueItems } from './value-items.ts';

export interface CompletionResult {
  items: CompletionEntry[];
  /** Offsets of the word the items replace. */
  range: Range;
  /** More items match than were sent (the client asks again as the word grows). */
  incomplete: boolean;
}

/**
 * Most items one answer carries. A file of thousands of entries offers thousands of ids after
 * `!KeyOf`: the nearest ones that match what is typed are sent, and the list is marked incomplete.
 */
const MAX_ITEMS = 200;

/**
 * Completion at `offset` of a blueprint: keys, values, models, tags and their arguments, from the
 * schema in `index` and the document's own entries and context; inside an expression, the names
 * the service gives it. Never throws.
 */
export function doComplete(
  text: string,
  root: BNode | undefined,
  offset: number,
  index: SchemaIndex,
): CompletionResult {
  const expression = expressionCompletion(text, root, offset, index);
  if (expression) {
    const items = expression.items.map((item, position) => ({ ...item, sortText: String(position).padStart(4, '0') }));
    return { items, range: expression.range, incomplete: false };
  }
  const context = completionContext(text, offset);
  if (!context) {
    const at = Math.max(0, Math.min(offset, text.length));
    return { items: [], range: [at, at], incomplete: false };
  }
  let drafts = itemsAt({ text, root, index, context });
  const incomplete = drafts.length > MAX_ITEMS;
  if (incomplete) {
    const typed = context.typed.toLowerCase();
    drafts = drafts.filter((item) => item.label.toLowerCase().includes(typed)).slice(0, MAX_ITEMS);
  }
  const items = drafts.map((item, position) => ({
    ...item,
    insertText: (context.spaceBefore ? ' ' : '') + item.insertText,
    sortText: String(position).padStart(4, '0'),
  }));
  return { items, range: context.range, incomplete };
}

function itemsAt(site: Site): Draft[] {
  const { context } = site;
  if (context.scalarTag === '!KeyOf') return entryIdItems(site);
  if (context.scalarTag === '!Context') return contextKeyItems(site);
  if (context.scalarTag) return [];
  // A tag cannot start inside quotes.
  const tags = context.quoted ? [] : tagItems();
  const tagged = context.path.findLastIndex((step) => step.tag !== undefined);
  if (tagged >= 0) return context.slot === 'value' ? [...tagArgumentItems(site, tagged), ...tags] : [];
  const { path, slot } = context;
  if (slot === 'key' && path.length === 2 && stepName(path[0]) === 'metadata' && stepName(path[1]) === 'labels') {
    return labelItems(site);
  }
  const entryKey = entryStep(path) === path.length - 2 ? stepName(path.at(-1)) : undefined;
  if (slot === 'value' && entryKey === 'model') return [...modelItems(site), ...tags];
  const schemas = schemaAt(site);
  // An entry's state is one of four words the service reads before any tag is resolved.
  if (slot === 'value' && entryKey === 'state') return valueItems(site, schemas);
  if (slot === 'key' || (slot === 'either' && isObjectSchema(site.index, schemas))) return keyItems(site, schemas);
  return [...valueItems(site, schemas), ...tags];
}
