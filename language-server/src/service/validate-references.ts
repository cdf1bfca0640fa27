import type { BMap, BNode } from './blueprint-node.ts';
import { problem, referenceCodes, type Problem } from './problem.ts';
import type { SchemaIndex } from './schema-index.ts';
import { didYouMean, findEntry, isDeferred } from './validate-helpers.ts';

const codes = referenceCodes;

export interface CheckReferencesOptions {
  /** The schema index, for the model whose entries have no identifiers (checked only when given). */
  index?: SchemaIndex;
  /** The text, so that messages can name lines (offsets only are known without it). */
  text?: string;
}

/** What an entry leaves for `!KeyOf` once it has run. */
type Outcome = 'object' | 'absent' | 'skipped';

/** One entry of the file, in document order, with what the cross-entry checks need. */
interface EntryInfo {
  node: BNode;
  /** The literal `id` (a plain scalar), if any. */
  id: string | undefined;
  idNode: BNode | undefined;
  /** The entry or its id is computed (a tag or an alias): it may define any id. */
  dynamic: boolean;
  outcome: Outcome;
}

/**
 * Cross-entry checks, following the service: entries run in document order (named groups
 * flattened in order) and `!KeyOf x` finds the FIRST entry with id `x` that has already created an
 * object. So it only sees entries above it; an entry with `state: absent` creates nothing, nor does
 * one skipped by a falsy literal in `conditions`. The conditions case is a warning only: a literal
 * `false` is usually a temporary switch, and computed conditions are never judged. Ids made by tags
 * are unknown, so after one of them an unknown id is not reported.
 */
export function checkReferences(root: BNode | undefined, options: CheckReferencesOptions = {}): Problem[] {
  const problems: Problem[] = [];
  const entries = root ? entriesOf(root) : [];
  const lineOf = (offset: number): number | undefined =>
    options.text === undefined ? undefined : options.text.slice(0, offset).split('\n').length;

  // Only entries that create an object compete for `!KeyOf`: an absent or skipped one is no rival.
  const firstById = new Map<string, EntryInfo>();
  for (const entry of entries) {
    if (entry.id === undefined || !entry.idNode || entry.outcome !== 'object') continue;
    const first = firstById.get(entry.id);
    if (!first) {
      firstById.set(entry.id, entry);
      continue;
    }
    const line = lineOf(first.idNode!.range[0]);
    const where = line === undefined ? '' : ` (first at line ${line})`;
    const message = `Duplicate id "${entry.id}"${where}: !KeyOf ${entry.id} refers to the first entry with this id that created an object.`;
    problems.push(problem(codes, 'id-duplicate', entry.idNode.range, message));
  }

  entries.forEach((entry, position) => {
    const above = entries.slice(0, position);
    for (const reference of keyOfNodes(entry.node)) checkKeyOf(reference, above, entries, entry, problems);
    if (options.index) checkMetaIdentifiers(entry.node, options.index, problems);
  });
  return problems;
}

function checkKeyOf(
  node: BNode,
  above: readonly EntryInfo[],
  all: readonly EntryInfo[],
  own: EntryInfo,
  problems: Problem[],
): void {
  // Sequences and mappings are reported by the tag checks (tag-wrong-kind).
  if (node.kind !== 'scalar') return;
  const id = node.value === null ? '' : String(node.value).trim();
  if (id === '') {
    problems.push(problem(codes, 'keyof-empty', node.range, '!KeyOf needs the id of an entry above it: !KeyOf <id>.'));
    return;
  }
  const definedAbove = above.filter((entry) => entry.id === id);
  if (definedAbove.some((entry) => entry.outcome === 'object')) return;
  if (definedAbove.some((entry) => entry.outcome === 'skipped')) {
    const message = `Entry "${id}" is skipped (its conditions contain a false value), so it creates nothing to reference.`;
    problems.push(problem(codes, 'keyof-skipped-entry', node.range, message));
    return;
  }
  if (definedAbove.length > 0) {
    const message = `Entry "${id}" has state: absent, so it creates nothing to reference.`;
    problems.push(problem(codes, 'keyof-absent-entry', node.range, message));
    return;
  }
  if (own.id === id) {
    const message = `Entry "${id}" is this entry itself; !KeyOf only sees entries above it.`;
    problems.push(problem(codes, 'keyof-later-entry', node.range, message));
    return;
  }
  if (all.some((entry) => entry.id === id)) {
    const message = `Entry "${id}" comes later in the file; !KeyOf only sees entries above it.`;
    problems.push(problem(codes, 'keyof-later-entry', node.range, message));
    return;
  }
  if (above.some((entry) => entry.dynamic)) return;
  const known = [...new Set(above.flatMap((entry) => (entry.id === undefined ? [] : [entry.id])))];
  const message = `No entry has id "${id}".${didYouMean(id, known)}`;
  problems.push(problem(codes, 'keyof-unknown-id', node.range, message));
}

/**
 * The model whose entries have no identifiers of their own (it applies another blueprint, found by
 * the identifiers in its attrs) needs `attrs.identifiers`.
 */
function checkMetaIdentifiers(node: BNode, index: SchemaIndex, problems: Problem[]): void {
  if (node.kind !== 'map' || isDeferred(node)) return;
  const modelEntry = findEntry(node, 'model');
  const value = modelEntry?.value;
  if (!modelEntry || !value || value.kind !== 'scalar' || isDeferred(value) || typeof value.value !== 'string') return;
  const model = index.lookupModel(value.value).model;
  // Found from the schema: entries without identifiers whose attrs carry an `identifiers` field.
  if (!model || model.identifiersRequired || model.entryKeys.includes('identifiers')) return;
  if (!model.fieldNames.includes('identifiers')) return;
  const attrs = findEntry(node, 'attrs');
  if (attrs && (attrs.value.kind !== 'map' || isDeferred(attrs.value) || findEntry(attrs.value, 'identifiers'))) return;
  const message = `An entry of ${model.name} has no identifiers of its own: add attrs.identifiers to say which one to use.`;
  problems.push(problem(codes, 'attrs-identifiers-missing', modelEntry.range, message));
}

/** The entries in document order: a sequence, or a mapping of named groups flattened in order. */
function entriesOf(root: BNode): EntryInfo[] {
  if (root.kind !== 'map') return [];
  const entries = findEntry(root, 'entries')?.value;
  if (!entries) return [];
  const groups =
    entries.kind === 'map' && !isDeferred(entries) ? entries.entries.map((entry) => entry.value) : [entries];
  return groups.flatMap((group): EntryInfo[] => {
    if (group.kind !== 'seq' || isDeferred(group)) {
      // A computed group may define any id.
      return group.kind === 'scalar' && !isDeferred(group) ? [] : [dynamicEntry(group)];
    }
    return group.items.map(entryInfo);
  });
}

function dynamicEntry(node: BNode): EntryInfo {
  return { node, id: undefined, idNode: undefined, dynamic: true, outcome: 'object' };
}

function entryInfo(node: BNode): EntryInfo {
  if (node.kind !== 'map' || isDeferred(node)) return dynamicEntry(node);
  const idNode = findEntry(node, 'id')?.value;
  const literal = idNode && idNode.kind === 'scalar' && !isDeferred(idNode) && idNode.value !== null;
  return {
    node,
    id: literal ? String(idNode.value) : undefined,
    idNode: literal ? idNode : undefined,
    dynamic: idNode !== undefined && isDeferred(idNode),
    outcome: outcomeOf(node),
  };
}

function outcomeOf(node: BMap): Outcome {
  const state = findEntry(node, 'state')?.value;
  if (state?.kind === 'scalar' && !isDeferred(state) && state.value === 'absent') return 'absent';
  const conditions = findEntry(node, 'conditions')?.value;
  if (conditions?.kind === 'seq' && !isDeferred(conditions)) {
    if (conditions.items.some((item) => item.kind === 'scalar' && !isDeferred(item) && !item.value)) return 'skipped';
  }
  return 'object';
}

/** Every scalar or collection tagged `!KeyOf` inside a node (also inside other tags), in order. */
function keyOfNodes(root: BNode): BNode[] {
  const found: BNode[] = [];
  const pending: BNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.tag === '!KeyOf') found.push(node);
    const children =
      node.kind === 'seq' ? node.items : node.kind === 'map' ? node.entries.flatMap((e) => [e.key, e.value]) : [];
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  return found;
}
