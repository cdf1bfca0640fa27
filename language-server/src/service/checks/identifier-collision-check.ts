import { problem, serviceCodes, type Problem } from '../problem.ts';
import type { BEntry, BNode } from '../reading/blueprint-node.ts';
import { isDeferred, keyName } from '../reading/node-queries.ts';
import { lineIndexOf } from '../reading/text-document.ts';
import type { SchemaIndex } from '../schema/schema-index.ts';
import type { Check } from './check.ts';
import { forEachEntry } from './top-level-check.ts';

/** What an entry selects: the object its model and identifiers find, and what it does to it. */
interface Selection {
  /** The model and the identifiers' names and values, one string: equal strings select the same object. */
  key: string;
  absent: boolean;
  /** `state: present` (the default): it updates the object it finds. */
  updates: boolean;
  /** The `identifiers` key, where a collision is reported. */
  identifiersKey: BNode;
  /** The identifiers mapping, shown in the message. */
  identifiers: BNode;
}

/**
 * Two entries of one model whose identifiers are the same find the same object: the second (with
 * `state: present`) updates what the first made, and overwrites what it set. Only entries that
 * surely apply are compared (no `conditions` other than literal `true`); `state: absent` between
 * them deletes the object, so the later one starts afresh. Values are compared as the service's
 * lookups compare them (`1` and `"1"` alike); a value computed by a tag is compared by its text.
 */
export const identifierCollisionCheck: Check = {
  id: 'identifier-collisions',
  checkBlueprint: (root, context, problems) => collectCollisions(root, context.index, context.text, problems),
};

function collectCollisions(root: BNode | undefined, index: SchemaIndex, text: string, problems: Problem[]): void {
  const live = new Map<string, BNode>();
  forEachEntry(root, (entry) => {
    const selection = selectionOf(entry, index, text);
    if (!selection) return;
    if (selection.absent) {
      live.delete(selection.key);
      return;
    }
    const earlier = live.get(selection.key);
    if (earlier && selection.updates) {
      const line = lineIndexOf(text).positionAt(earlier.start).line + 1;
      const model = selection.key.slice(0, selection.key.indexOf('\u0000'));
      const shown = text
        .slice(selection.identifiers.start, selection.identifiers.end)
        .replace(/\s+/g, ' ')
        .slice(0, 120);
      const message = `This entry selects the same ${model} as the entry at line ${line} (identifiers ${shown}): the service updates that object again, overwriting what the entry at line ${line} set.`;
      problems.push(problem(serviceCodes, 'identifiers-collision', selection.identifiersKey.range, message));
    }
    if (!earlier || selection.updates) live.set(selection.key, entry);
  });
}

/** Parsed entries never change (their nodes only move), so a selection is read once per entry. */
const selections = new WeakMap<BNode, Selection | null>();

function selectionOf(entry: BNode, index: SchemaIndex, text: string): Selection | undefined {
  let found = selections.get(entry);
  if (found === undefined) {
    found = readSelection(entry, index, text) ?? null;
    selections.set(entry, found);
  }
  return found ?? undefined;
}

function readSelection(entry: BNode, index: SchemaIndex, text: string): Selection | undefined {
  if (entry.kind !== 'map' || isDeferred(entry)) return undefined;
  // model, identifiers, conditions and state in one pass over the keys, as `findEntry` finds them (the last one wins).
  let modelNode: BNode | undefined;
  let identifiers: BEntry | undefined;
  let conditions: BNode | undefined;
  let state: BNode | undefined;
  for (let i = 0; i < entry.entries.length; i++) {
    const item = entry.entries[i]!;
    const name = keyName(item);
    if (name === 'model') modelNode = item.value;
    else if (name === 'identifiers') identifiers = item;
    else if (name === 'conditions') conditions = item.value;
    else if (name === 'state') state = item.value;
  }
  if (modelNode?.kind !== 'scalar' || isDeferred(modelNode) || typeof modelNode.value !== 'string') return undefined;
  const model = index.lookupModel(modelNode.value).model;
  if (!model || !identifiers) return undefined;
  const map = identifiers.value;
  if (map.kind !== 'map' || isDeferred(map) || map.entries.length === 0) return undefined;
  if (conditions && !(conditions.kind === 'seq' && !isDeferred(conditions) && conditions.items.every(isLiteralTrue))) {
    return undefined;
  }
  if (state && (state.kind !== 'scalar' || isDeferred(state))) return undefined;
  const stateName = state ? String(state.value) : 'present';
  const parts: string[] = [];
  for (let i = 0; i < map.entries.length; i++) {
    const item = map.entries[i]!;
    const name = keyName(item);
    if (name === undefined) return undefined;
    parts.push(`${name}=${valueKey(item, text)}`);
  }
  parts.sort();
  return {
    key: `${model.name}\u0000${parts.join('\u0001')}`,
    absent: stateName === 'absent',
    updates: stateName === 'present',
    identifiersKey: identifiers.key,
    identifiers: map,
  };
}

function isLiteralTrue(node: BNode): boolean {
  return node.kind === 'scalar' && !isDeferred(node) && node.value === true;
}

/** A value as the lookup sees it: strings and numbers by their text, anything else as written. */
function valueKey(item: BEntry, text: string): string {
  const value = item.value;
  if (value.kind === 'scalar' && !isDeferred(value)) {
    if (typeof value.value === 'string' || typeof value.value === 'number') return `s:${String(value.value)}`;
    return `v:${String(value.value)}`;
  }
  return `t:${text.slice(value.start, value.end).replace(/\s+/g, ' ')}`;
}
