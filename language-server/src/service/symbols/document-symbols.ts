import type { Range } from '../problem.ts';
import { entryGroups, listEntries, type EntryRef } from '../reading/blueprint-entries.ts';
import type { BEntry, BNode } from '../reading/blueprint-node.ts';
import { findEntry, isDeferred, keyName } from '../reading/node-queries.ts';

/**
 * What a symbol of the outline stands for.
 * - `section`: a top-level key (`version`, `metadata`, `context`, `entries`, ...).
 * - `group`: a named group of entries (when `entries` is a mapping).
 * - `entry`: one entry, named by model, id and identifiers.
 * - `key`: a key directly under a section other than `entries` (e.g. `metadata.name`).
 */
export type BlueprintSymbolKind = 'section' | 'group' | 'entry' | 'key';

/** One node of the outline; offsets are UTF-16 code units of the text. */
export interface BlueprintSymbol {
  /** Never empty or blank (editors reject such names). */
  name: string;
  /** A short note shown after the name, e.g. `3 entries`. */
  detail?: string;
  kind: BlueprintSymbolKind;
  /** The whole thing (an entry: from its first key to its last value). */
  range: Range;
  /** What to reveal and highlight: a key, or an entry's model value; inside `range`. */
  selectionRange: Range;
  children: BlueprintSymbol[];
}

/** Values in names and hovers stay short: the outline is for finding things, not reading them. */
const VALUE_LIMIT = 40;

function shortValue(node: BNode): string {
  const tag = isDeferred(node) && node.tag ? `${node.tag} ` : '';
  let text: string;
  if (node.kind === 'scalar') text = `${tag}${String(node.value)}`;
  else if (node.kind === 'alias') text = `*${node.name}`;
  else text = `${tag}${node.kind === 'seq' ? '[…]' : '{…}'}`;
  return text.length > VALUE_LIMIT ? `${text.slice(0, VALUE_LIMIT - 1)}…` : text;
}

function keyText(pair: BEntry): string {
  return keyName(pair) ?? shortValue(pair.key);
}

/** A name an editor accepts: a blank key (`"": x`) is shown quoted. */
function visible(name: string): string {
  return name.trim() === '' ? JSON.stringify(name) : name;
}

/** `slug=my-flow, name=Main` for an identifiers mapping; '' when there is none. */
export function identifiersText(identifiers: BNode | undefined): string {
  if (identifiers?.kind !== 'map') return '';
  return identifiers.entries.map((pair) => `${keyText(pair)}=${shortValue(pair.value)}`).join(', ');
}

function entryName(entry: EntryRef): string {
  if (entry.node.kind !== 'map') return shortValue(entry.node);
  const model = entry.model ?? (entry.modelNode ? shortValue(entry.modelNode) : '(no model)');
  const id = entry.id === undefined ? '' : `#${entry.id}`;
  return [model, id, identifiersText(entry.identifiers)].filter((part) => part !== '').join('  ');
}

function entrySymbol(entry: EntryRef): BlueprintSymbol {
  const node = entry.node;
  const firstKey = node.kind === 'map' ? node.entries[0]?.key : undefined;
  const selectionRange = (entry.modelNode ?? firstKey ?? node).range;
  return {
    name: visible(entryName(entry)),
    kind: 'entry',
    // A tagged first key (`- !If [a, b] x: y`) starts before the mapping the yaml package reads,
    // and editors reject a symbol whose selection leaves its range.
    range: [Math.min(node.range[0], selectionRange[0]), Math.max(node.range[1], selectionRange[1])],
    selectionRange,
    children: [],
  };
}

const countEntries = (n: number): string => (n === 1 ? '1 entry' : `${n} entries`);

function entriesChildren(root: BNode, entries: readonly EntryRef[]): BlueprintSymbol[] {
  return entryGroups(root).flatMap(({ key, entry: pair }): BlueprintSymbol[] => {
    // A plain sequence is one group without a key: its entries sit directly under the section.
    if (!key || !pair) return entries.map(entrySymbol);
    const members = entries.filter((entry) => entry.group?.key === key);
    const symbol: BlueprintSymbol = {
      name: visible(keyText(pair)),
      detail: countEntries(members.length),
      kind: 'group',
      range: pair.range,
      selectionRange: key.range,
      children: members.map(entrySymbol),
    };
    return [symbol];
  });
}

function keySymbols(value: BNode): BlueprintSymbol[] {
  if (value.kind !== 'map' || isDeferred(value)) return [];
  return value.entries.map((pair) => ({
    name: visible(keyText(pair)),
    ...(pair.value.kind === 'scalar' ? { detail: shortValue(pair.value) } : {}),
    kind: 'key',
    range: pair.range,
    selectionRange: pair.key.range,
    children: [],
  }));
}

/**
 * The outline of a blueprint: its top-level sections; under `entries` the named groups (if any)
 * and the entries, each named like `idp_flows.flow  #flow  slug=my-flow` (model, id,
 * identifiers); under the other sections their keys. Empty when the root is not a mapping.
 */
export function documentSymbols(root: BNode | undefined): BlueprintSymbol[] {
  if (root?.kind !== 'map') return [];
  // The loader reads the last `entries` key: an earlier duplicate is outlined like any section.
  const entriesPair = findEntry(root, 'entries');
  return root.entries.map((pair): BlueprintSymbol => {
    const section = { name: visible(keyText(pair)), kind: 'section' as const, range: pair.range };
    const selectionRange = pair.key.range;
    if (pair === entriesPair) {
      const entries = listEntries(root);
      const children = entriesChildren(root, entries);
      return { ...section, detail: countEntries(entries.length), selectionRange, children };
    }
    const detail = pair.value.kind === 'map' ? undefined : shortValue(pair.value);
    return {
      ...section,
      ...(detail === undefined ? {} : { detail }),
      selectionRange,
      children: keySymbols(pair.value),
    };
  });
}
