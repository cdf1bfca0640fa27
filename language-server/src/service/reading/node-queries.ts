import type { Range } from '../problem.ts';
import type { BEntry, BMap, BNode, ScalarValue } from './blueprint-node.ts';

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
 * A scalar's value as text. Most values are strings already: `String()` is a call into the engine
 * until V8 optimises its caller, made for every key and id of a cold validation.
 */
export function textOf(value: ScalarValue): string {
  return typeof value === 'string' ? value : String(value);
}

/** The key of a mapping entry as text, unless it is not a plain scalar. */
export function keyName(entry: BEntry): string | undefined {
  return entry.key.kind === 'scalar' && !isDeferred(entry.key) ? textOf(entry.key.value) : undefined;
}

/** The entry with that key; the last one wins, like the service's loader. */
export function findEntry(map: BMap, name: string): BEntry | undefined {
  let found: BEntry | undefined;
  const entries = map.entries;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
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
