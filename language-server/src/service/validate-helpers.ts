import type { BEntry, BMap, BNode } from './blueprint-node.ts';
import { closest } from './edit-distance.ts';
import type { Range } from './problem.ts';
import type { ModelInfo } from './schema-index.ts';

/**
 * No nodes: the `skip` of a tree walk that skips nothing. A set, not an optional callback: the walks
 * run for every entry without one and then for the root with one, and a call site first met
 * there sent the optimised walk back to the interpreter.
 */
export const NO_NODES: ReadonlySet<BNode> = new Set();

/** A custom tag (or an alias): the value is only known at apply time, so it fits any schema. */
export function isDeferred(node: BNode): boolean {
  return node.kind === 'alias' || node.tag?.startsWith('!') === true;
}

/**
 * Where `written` differs from `model`'s name only in case: the part the service matches exactly,
 * so that it finds no model, or undefined when the difference is folded. The service lowercases
 * only the model part of a name; it matches the app label exactly, and the whole name of the
 * model without identifiers (no database model: it applies another blueprint).
 */
export function caseSensitivePart(written: string, model: ModelInfo): 'app label' | 'model name' | undefined {
  if (written.split('.')[0] !== model.app) return 'app label';
  return model.entryKeys.includes('identifiers') ? undefined : 'model name';
}

/** The key of a mapping entry as text, unless it is not a plain scalar. */
export function keyName(entry: BEntry): string | undefined {
  return entry.key.kind === 'scalar' && !isDeferred(entry.key) ? String(entry.key.value) : undefined;
}

/** The entry with that key; the last one wins, like the service's loader. */
export function findEntry(map: BMap, name: string): BEntry | undefined {
  let found: BEntry | undefined;
  for (const entry of map.entries) {
    const key = entry.key;
    if (key.kind !== 'scalar') continue;
    // `keyName(entry) === name`, the string case first: a mapping is searched for several keys.
    const value = key.value;
    const same = typeof value === 'string' ? value === name : String(value) === name;
    if (same && !isDeferred(key)) found = entry;
  }
  return found;
}

/** From the start of a mapping to the end of its first key: "this entry" without the whole block. */
export function firstLine(node: BNode): Range {
  if (node.kind === 'map' && node.entries[0]) return [node.range[0], node.entries[0].key.range[1]];
  return node.range;
}

/** The candidate nearest to a misspelt word, if one is near enough. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  return closest(word, candidates, Math.max(2, Math.floor(word.length / 4)));
}

/** " Did you mean 'x'?" for a suggestion, or nothing. */
export function hint(suggestion: string | undefined): string {
  return suggestion ? ` Did you mean '${suggestion}'?` : '';
}

export function didYouMean(word: string, candidates: readonly string[]): string {
  return hint(suggest(word, candidates));
}

export function oneOf(values: readonly string[]): string {
  return values.join(', ');
}

/** Whether an untagged node fits a simple JSON Schema `type` (string or list). */
export function fitsType(node: BNode, type: unknown): boolean {
  return type === undefined || fitsTypeNames(node, typeNames(type));
}

/** The names of a JSON Schema `type` (string or list), to check many nodes against with `fitsTypeNames`. */
export const typeNames = (type: unknown): string[] => (Array.isArray(type) ? type.map(String) : [String(type)]);

export function fitsTypeNames(node: BNode, names: readonly string[]): boolean {
  if (isDeferred(node)) return true;
  for (const name of names) if (fitsTypeName(node, name)) return true;
  return false;
}

function fitsTypeName(node: BNode, name: string): boolean {
  if (node.kind === 'map') return name === 'object';
  if (node.kind === 'seq') return name === 'array';
  if (node.kind !== 'scalar') return true;
  if (name === 'object' || name === 'array') return false;
  const value = node.value;
  if (name === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (name === 'null') return value === null;
  return typeof value === name;
}

export const typeWords: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a sequence',
  null: 'null',
};

export function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((name) => typeWords[String(name)] ?? String(name)).join(' or ');
}
