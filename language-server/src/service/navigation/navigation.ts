import { keyOfNodes, outcomeOf } from '../checks/reference-check.ts';
import type { Range, TextEdit } from '../problem.ts';
import { entryAt, keyOfIdRange, listEntries, type EntryRef } from '../reading/blueprint-entries.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { pathAt } from '../reading/node-path.ts';

/** A `!KeyOf` reference and the entry it resolves to (as the service resolves it), if any. */
export interface KeyOfReference {
  node: BNode;
  /** Where the id is written (inside quotes when quoted). */
  idRange: Range;
  id: string;
  /** The entry that contains the reference. */
  from: EntryRef;
  target: EntryRef | undefined;
}

/** What is under the cursor for navigation: an entry's `id`, or a `!KeyOf` naming one. */
export type NavigationSymbol =
  { kind: 'definition'; entry: EntryRef; idRange: Range } | { kind: 'reference'; reference: KeyOfReference };

/** The ids and references of one tree. */
export interface NavigationIndex {
  entries: readonly EntryRef[];
  references: KeyOfReference[];
}

const indexMemo = new WeakMap<BNode, NavigationIndex>();

/** The ids and references of a tree, computed once per parse (see `listEntries`). */
export function navigationIndex(text: string, root: BNode | undefined): NavigationIndex {
  if (!root) return { entries: [], references: [] };
  const remembered = indexMemo.get(root);
  if (remembered) return remembered;
  const index = readNavigationIndex(text, root);
  indexMemo.set(root, index);
  return index;
}

/**
 * `!KeyOf x` finds the first entry ABOVE with id `x` that created an object; when every such entry
 * is absent or skipped, the first of them is still the one the author meant (for navigation).
 */
function readNavigationIndex(text: string, root: BNode): NavigationIndex {
  const entries = listEntries(root);
  const byId = new Map<string, EntryRef[]>();
  for (const entry of entries) {
    if (entry.id === undefined) continue;
    const list = byId.get(entry.id);
    if (list) list.push(entry);
    else byId.set(entry.id, [entry]);
  }
  const references: KeyOfReference[] = [];
  for (const from of entries) {
    for (const node of keyOfNodes(from.node)) {
      if (node.kind !== 'scalar' || node.value === null) continue;
      const id = String(node.value).trim();
      const above = (byId.get(id) ?? []).filter((entry) => entry.position < from.position);
      const creating = above.find((entry) => entry.node.kind === 'map' && outcomeOf(entry.node) === 'object');
      references.push({ node, id, idRange: keyOfIdRange(node, text), from, target: creating ?? above[0] });
    }
  }
  return { entries, references };
}

export function symbolAt(text: string, index: NavigationIndex, root: BNode | undefined, offset: number) {
  const entry = entryAt(index.entries, offset);
  if (!entry) return undefined;
  if (entry.idNode && entry.idNode.range[0] <= offset && offset <= entry.idNode.range[1]) {
    return { kind: 'definition', entry, idRange: keyOfIdRange(entry.idNode, text) } satisfies NavigationSymbol;
  }
  const path = pathAt(root, offset);
  const node = path[path.length - 1]?.node;
  const reference = node && index.references.find((candidate) => candidate.node === node);
  return reference ? ({ kind: 'reference', reference } satisfies NavigationSymbol) : undefined;
}

/** The entry an id or `!KeyOf` at the offset stands for. */
function targetAt(text: string, index: NavigationIndex, root: BNode | undefined, offset: number) {
  const symbol = symbolAt(text, index, root, offset);
  if (!symbol) return undefined;
  return symbol.kind === 'definition' ? symbol.entry : symbol.reference.target;
}

/** Go to definition: the `id` value of the entry a `!KeyOf` (or an `id`) at the offset names. */
export function findDefinition(
  text: string,
  root: BNode | undefined,
  offset: number,
): { target: EntryRef; idRange: Range } | undefined {
  const target = targetAt(text, navigationIndex(text, root), root, offset);
  return target?.idNode ? { target, idRange: keyOfIdRange(target.idNode, text) } : undefined;
}

/** Every `!KeyOf` that resolves to the entry under the cursor (and its `id`, if asked). */
export function findReferences(text: string, root: BNode | undefined, offset: number, includeDeclaration: boolean) {
  const index = navigationIndex(text, root);
  const target = targetAt(text, index, root, offset);
  if (!target) return [];
  const ranges = index.references.filter((reference) => reference.target === target).map((ref) => ref.idRange);
  return includeDeclaration && target.idNode ? [keyOfIdRange(target.idNode, text), ...ranges] : ranges;
}

/** The id text that a rename at the offset would change, and its current name. */
export function prepareRename(text: string, root: BNode | undefined, offset: number) {
  const index = navigationIndex(text, root);
  const target = targetAt(text, index, root, offset);
  const symbol = symbolAt(text, index, root, offset);
  if (!target?.idNode || !symbol || target.id === undefined) return undefined;
  const range = symbol.kind === 'definition' ? symbol.idRange : symbol.reference.idRange;
  return { range, placeholder: target.id };
}

export type RenameResult = { edits: TextEdit[] } | { error: string };

/** Text that can stand as a plain YAML scalar without changing meaning (else it is written quoted). */
const PLAIN_ID = /^[A-Za-z_][A-Za-z0-9_.\-/]*$/;

/**
 * Renames the entry id at the offset and every `!KeyOf` that resolves to it. Refuses a name that
 * another entry already uses: the references would become ambiguous.
 */
export function renameId(text: string, root: BNode | undefined, offset: number, newName: string): RenameResult {
  const index = navigationIndex(text, root);
  const target = targetAt(text, index, root, offset);
  if (!target?.idNode || target.id === undefined)
    return { error: 'Only an entry id or a !KeyOf reference can be renamed.' };
  const name = newName.trim();
  if (name === '' || /[\n\r]/.test(name)) return { error: 'An id must be a non-empty single line.' };
  if (name === target.id) return { edits: [] };
  if (index.entries.some((entry) => entry.id === name)) {
    return { error: `An entry with id "${name}" already exists: !KeyOf ${name} would become ambiguous.` };
  }
  const places = [
    keyOfIdRange(target.idNode, text),
    ...index.references.filter((reference) => reference.target === target).map((reference) => reference.idRange),
  ];
  return { edits: places.map((range) => ({ range, newText: written(text, range, name) })) };
}

/** The new id as it must be written at a place: as is inside quotes, quoted where a plain scalar would not do. */
function written(text: string, [start, end]: Range, name: string): string {
  const quoted = text[start - 1] === '"' || text[start - 1] === "'";
  if (quoted && text[end] === text[start - 1]) {
    return text[start - 1] === '"' ? JSON.stringify(name).slice(1, -1) : name.replace(/'/g, "''");
  }
  return PLAIN_ID.test(name) ? name : JSON.stringify(name);
}
