import type { Range } from '../problem.ts';
import type { BEntry, BNode } from './blueprint-node.ts';
import { findEntry, isDeferred } from './node-queries.ts';

/** One entry of a blueprint as the editor features see it. */
export interface EntryRef {
  /** The entry (a mapping, unless the file is wrong). */
  node: BNode;
  /** Position in document order (groups flattened), from 0. */
  position: number;
  /** The named group it belongs to, when `entries` is a mapping of groups. */
  group?: { name: string; key: BNode };
  /** The `model` as written (a plain string), and its node. */
  model?: string;
  modelNode?: BNode;
  /** The literal `id`, and its node. */
  id?: string;
  idNode?: BNode;
  /** `identifiers` (or `attrs.identifiers` for the meta model), when a mapping. */
  identifiers?: BNode;
}

/** The value of a plain (untagged) string scalar. */
export function plainString(node: BNode | undefined): string | undefined {
  return node?.kind === 'scalar' && !isDeferred(node) && typeof node.value === 'string' ? node.value : undefined;
}

/** The `entries` value of the root, and each group's key and sequence (one unnamed group for a plain sequence). */
export function entryGroups(root: BNode | undefined): { name?: string; key?: BNode; entry?: BEntry; items: BNode }[] {
  if (root?.kind !== 'map') return [];
  const entries = findEntry(root, 'entries')?.value;
  if (!entries || isDeferred(entries)) return [];
  if (entries.kind === 'seq') return [{ items: entries }];
  if (entries.kind !== 'map') return [];
  return entries.entries.map((entry) => ({
    name: entry.key.kind === 'scalar' ? String(entry.key.value) : '',
    key: entry.key,
    entry,
    items: entry.value,
  }));
}

/**
 * Each parse makes a new root (unchanged entries are reused below it), so the entries of a root are
 * computed once, however many requests (completion, hover, navigation) ask for them.
 */
const entriesMemo = new WeakMap<BNode, readonly EntryRef[]>();

/** Every entry in document order (named groups flattened in order). Do not change the list. */
export function listEntries(root: BNode | undefined): readonly EntryRef[] {
  if (!root) return [];
  const remembered = entriesMemo.get(root);
  if (remembered) return remembered;
  const result = readEntries(root);
  entriesMemo.set(root, result);
  return result;
}

function readEntries(root: BNode): EntryRef[] {
  const result: EntryRef[] = [];
  for (const group of entryGroups(root)) {
    if (group.items.kind !== 'seq' || isDeferred(group.items)) continue;
    const named = group.key && group.name !== undefined ? { name: group.name, key: group.key } : undefined;
    for (const node of group.items.items) {
      const facts = factsOf(node);
      // One shape for every ref, built at once: thousands are made per parse.
      result.push({
        node,
        position: result.length,
        group: named,
        model: facts.model,
        modelNode: facts.modelNode,
        id: facts.id,
        idNode: facts.idNode,
        identifiers: facts.identifiers,
      });
    }
  }
  return result;
}

type EntryFacts = Pick<EntryRef, 'model' | 'modelNode' | 'id' | 'idNode' | 'identifiers'>;

/**
 * What an entry's own node says of it. A parse hands unchanged entries over as the same nodes,
 * so these are read once per entry, not once per entry and keystroke.
 */
const factsMemo = new WeakMap<BNode, EntryFacts>();

function factsOf(node: BNode): EntryFacts {
  let facts = factsMemo.get(node);
  if (facts) return facts;
  facts = {};
  if (node.kind === 'map' && !isDeferred(node)) {
    const model = findEntry(node, 'model')?.value;
    const id = findEntry(node, 'id')?.value;
    const identifiers = findEntry(node, 'identifiers')?.value;
    const attrs = findEntry(node, 'attrs')?.value;
    const metaIdentifiers = attrs?.kind === 'map' ? findEntry(attrs, 'identifiers')?.value : undefined;
    if (plainString(model) !== undefined) facts.model = plainString(model);
    if (model) facts.modelNode = model;
    if (id?.kind === 'scalar' && !isDeferred(id) && id.value !== null) {
      facts.id = String(id.value);
      facts.idNode = id;
    }
    const shown = identifiers ?? metaIdentifiers;
    if (shown?.kind === 'map') facts.identifiers = shown;
  }
  factsMemo.set(node, facts);
  return facts;
}

/** The entry whose range contains `offset` (its first line to its last value). */
export function entryAt(entries: readonly EntryRef[], offset: number): EntryRef | undefined {
  let low = 0;
  let high = entries.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = entries[mid]!.node.range;
    if (offset < start) high = mid - 1;
    else if (offset > end) low = mid + 1;
    else return entries[mid];
  }
  return undefined;
}

/** Where the id of a `!KeyOf id` scalar is written (inside the quotes when quoted). */
export function keyOfIdRange(node: BNode, text: string): Range {
  let start = node.tagRange ? node.tagRange[1] : node.range[0];
  let end = node.range[1];
  while (start < end && /\s/.test(text[start]!)) start++;
  const quote = text[start];
  if ((quote === '"' || quote === "'") && end - start >= 2 && text[end - 1] === quote) {
    start++;
    end--;
  }
  return [start, end];
}
