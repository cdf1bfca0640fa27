import { problem, referenceCodes, withSuggestions, type Problem } from '../problem.ts';
import { keyOfIdRange } from '../reading/blueprint-entries.ts';
import type { BMap, BNode, BScalar } from '../reading/blueprint-node.ts';
import { findEntry, isDeferred, keyName, textOf } from '../reading/node-queries.ts';
import { lineIndexOf, type LineIndex } from '../reading/text-document.ts';
import type { Check } from './check.ts';
import { suggest } from '../../../../common/spelling.ts';
import { hint } from './suggestions.ts';
import { taggedNodes } from './tagged-nodes.ts';

const codes = referenceCodes;

/** What an entry leaves for `!KeyOf` once it has run. */
export type Outcome = 'object' | 'absent' | 'skipped';

/** One entry of the file, in document order, with what the cross-entry checks need. */
interface EntryInfo {
  node: BNode;
  /** The literal `id` (a plain scalar), if any. */
  id: string | undefined;
  idNode: BNode | undefined;
  /** The entry or its id is computed (a tag or an alias): it may define any id. */
  dynamic: boolean;
  outcome: Outcome;
  /** The `!KeyOf` nodes inside it, in order. */
  references: readonly BNode[];
}

/**
 * Cross-entry checks, following the service: entries run in document order (named groups
 * flattened in order) and `!KeyOf x` finds the FIRST entry with id `x` that has already created an
 * object. So it only sees entries above it; an entry with `state: absent` creates nothing, nor does
 * one skipped by a falsy literal in `conditions`. The conditions case is a warning only: a literal
 * `false` is usually a temporary switch, and computed conditions are never judged. Ids made by tags
 * are unknown, so after one of them an unknown id is not reported. Linear in the number of entries.
 */
export function checkReferences(root: BNode | undefined): Problem[] {
  const problems: Problem[] = [];
  collectReferenceProblems(root, undefined, problems);
  return problems;
}

/** The references across the entries, once per blueprint. */
export const referenceCheck: Check = {
  id: 'references',
  checkBlueprint: (root, context, problems) => collectReferenceProblems(root, context.text, problems),
};

/** With the text, messages name lines (only offsets are known without it) and an unknown id gets a fix. */
function collectReferenceProblems(root: BNode | undefined, text: string | undefined, problems: Problem[]): void {
  const entries = root ? entriesOf(root) : [];
  let lines: LineIndex | undefined;
  const lineOf = (offset: number): number | undefined => {
    if (text === undefined) return undefined;
    lines ??= lineIndexOf(text);
    return lines.positionAt(offset).line + 1;
  };

  // Positions of the entries with each id, in document order.
  const positionsById = new Map<string, number[]>();
  for (let position = 0; position < entries.length; position++) {
    const id = entries[position]!.id;
    if (id === undefined) continue;
    const positions = positionsById.get(id);
    if (positions) positions.push(position);
    else positionsById.set(id, [position]);
  }

  // Only entries that create an object compete for `!KeyOf`: an absent or skipped one is no rival.
  for (const positions of positionsById.values()) {
    if (positions.length < 2) continue;
    const creating = positions.map((position) => entries[position]!).filter((entry) => entry.outcome === 'object');
    const first = creating[0];
    for (const entry of creating.slice(1)) {
      const line = lineOf(first!.idNode!.range[0]);
      const where = line === undefined ? '' : ` (first at line ${line})`;
      const message = `Duplicate id "${entry.id}"${where}: !KeyOf ${entry.id} refers to the first entry with this id that created an object.`;
      problems.push(problem(codes, 'id-duplicate', entry.idNode!.range, message));
    }
  }

  const context: ReferenceContext = {
    entries,
    positionsById,
    firstDynamic: entries.findIndex((entry) => entry.dynamic),
    text,
    ids: undefined,
  };
  for (let position = 0; position < entries.length; position++) {
    const references = entries[position]!.references;
    for (let i = 0; i < references.length; i++) checkKeyOf(references[i]!, position, context, problems);
  }
}

interface ReferenceContext {
  entries: readonly EntryInfo[];
  positionsById: ReadonlyMap<string, readonly number[]>;
  /** Position of the first entry that may define any id (-1: none). */
  firstDynamic: number;
  text: string | undefined;
  /** Every id by its first entry's position, made for the first unknown id: the suggestions' candidates. */
  ids: { names: string[]; firstPositions: number[] } | undefined;
}

function checkKeyOf(node: BNode, position: number, context: ReferenceContext, problems: Problem[]): void {
  // Sequences and mappings are reported by the tag checks (tag-wrong-kind).
  if (node.kind !== 'scalar') return;
  const id = node.value === null ? '' : textOf(node.value).trim();
  if (id === '') {
    problems.push(problem(codes, 'keyof-empty', node.range, '!KeyOf needs the id of an entry above it: !KeyOf <id>.'));
    return;
  }
  const positions = context.positionsById.get(id) ?? [];
  // The common case first, without allocating: the first entry with this id is above and created an object.
  if (positions.length > 0 && positions[0]! < position && context.entries[positions[0]!]!.outcome === 'object') return;
  const above = positions.filter((other) => other < position).map((other) => context.entries[other]!);
  if (above.some((entry) => entry.outcome === 'object')) return;
  if (above.some((entry) => entry.outcome === 'skipped')) {
    const message = `Entry "${id}" is skipped (its conditions contain a false value), so it creates nothing to reference.`;
    problems.push(problem(codes, 'keyof-skipped-entry', node.range, message));
    return;
  }
  if (above.length > 0) {
    const message = `Entry "${id}" has state: absent, so it creates nothing to reference.`;
    problems.push(problem(codes, 'keyof-absent-entry', node.range, message));
    return;
  }
  if (positions.includes(position)) {
    const message = `Entry "${id}" is this entry itself; !KeyOf only sees entries above it.`;
    problems.push(problem(codes, 'keyof-later-entry', node.range, message));
    return;
  }
  if (positions.length > 0) {
    const message = `Entry "${id}" comes later in the file; !KeyOf only sees entries above it.`;
    problems.push(problem(codes, 'keyof-later-entry', node.range, message));
    return;
  }
  if (context.firstDynamic >= 0 && context.firstDynamic < position) return;
  const suggestion = suggest(id, ...idsAbove(context, position));
  const found = problem(codes, 'keyof-unknown-id', node.range, `No entry has id "${id}".${hint(suggestion)}`);
  problems.push(
    context.text === undefined ? found : withSuggestions(found, keyOfIdRange(node, context.text), [suggestion]),
  );
}

/**
 * The ids of the entries above `position`: the first `count` of one list for the validation (a
 * map keeps its keys in the order they were added, here that of their first entry). A list of
 * them per unknown id made a file of many mistakes quadratic.
 */
function idsAbove(context: ReferenceContext, position: number): [names: string[], count: number] {
  const ids = (context.ids ??= {
    names: [...context.positionsById.keys()],
    firstPositions: [...context.positionsById.values()].map((positions) => positions[0]!),
  });
  let low = 0;
  let high = ids.firstPositions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids.firstPositions[middle]! < position) low = middle + 1;
    else high = middle;
  }
  return [ids.names, low];
}

/** The entries in document order: a sequence, or a mapping of named groups flattened in order. */
function entriesOf(root: BNode): EntryInfo[] {
  if (root.kind !== 'map') return [];
  const entries = findEntry(root, 'entries')?.value;
  if (!entries) return [];
  const groups =
    entries.kind === 'map' && !isDeferred(entries) ? entries.entries.map((entry) => entry.value) : [entries];
  const found: EntryInfo[] = [];
  for (const group of groups) {
    if (group.kind !== 'seq' || isDeferred(group)) {
      // A computed group may define any id.
      if (group.kind !== 'scalar' || isDeferred(group)) found.push(dynamicEntry(group));
      continue;
    }
    const items = group.items;
    for (let i = 0; i < items.length; i++) found.push(entryInfo(items[i]!));
  }
  return found;
}

function dynamicEntry(node: BNode): EntryInfo {
  return { node, id: undefined, idNode: undefined, dynamic: true, outcome: 'object', references: collectKeyOfs(node) };
}

function entryInfo(node: BNode): EntryInfo {
  const remembered = entryInfoMemo.get(node);
  if (remembered) return remembered;
  const info = readEntryInfo(node);
  entryInfoMemo.set(node, info);
  return info;
}

function readEntryInfo(node: BNode): EntryInfo {
  if (node.kind !== 'map' || isDeferred(node)) return dynamicEntry(node);
  // id, state and conditions in one pass over the keys, as `findEntry` finds them (the last one wins).
  let idNode: BNode | undefined;
  let state: BNode | undefined;
  let conditions: BNode | undefined;
  for (let i = 0; i < node.entries.length; i++) {
    const entry = node.entries[i]!;
    const name = keyName(entry);
    if (name === 'id') idNode = entry.value;
    else if (name === 'state') state = entry.value;
    else if (name === 'conditions') conditions = entry.value;
  }
  const literal =
    idNode?.kind === 'scalar' && !isDeferred(idNode) && idNode.value !== null ? (idNode as BScalar) : undefined;
  return {
    node,
    id: literal ? textOf(literal.value) : undefined,
    idNode: literal,
    dynamic: idNode !== undefined && isDeferred(idNode),
    outcome: outcomeFrom(state, conditions),
    references: collectKeyOfs(node),
  };
}

/** What an entry leaves for `!KeyOf`: an object, nothing (`state: absent`), or nothing because skipped. */
export function outcomeOf(node: BMap): Outcome {
  return outcomeFrom(findEntry(node, 'state')?.value, findEntry(node, 'conditions')?.value);
}

function outcomeFrom(state: BNode | undefined, conditions: BNode | undefined): Outcome {
  if (state?.kind === 'scalar' && !isDeferred(state) && state.value === 'absent') return 'absent';
  if (conditions?.kind === 'seq' && !isDeferred(conditions)) {
    if (conditions.items.some((item) => item.kind === 'scalar' && !isDeferred(item) && !item.value)) return 'skipped';
  }
  return 'object';
}

/**
 * Parsed trees never change shape (the parser's cache only moves their ranges), so what a node
 * holds can be remembered by identity: an entry kept from the previous parse is not read again.
 * One map for the validation (an entry's info holds its references): each is an insert per entry.
 */
const entryInfoMemo = new WeakMap<BNode, EntryInfo>();

/** Every scalar or collection tagged `!KeyOf` inside a node (also inside other tags), in order. */
export function keyOfNodes(root: BNode): readonly BNode[] {
  return entryInfoMemo.get(root)?.references ?? collectKeyOfs(root);
}

/** The common answer, shared: most entries hold no `!KeyOf`. */
const NO_REFERENCES: readonly BNode[] = [];

function collectKeyOfs(root: BNode): readonly BNode[] {
  const tagged = taggedNodes(root);
  let found: BNode[] | undefined;
  for (let i = 0; i < tagged.length; i++) if (tagged[i]!.tag === '!KeyOf') (found ??= []).push(tagged[i]!);
  return found ?? NO_REFERENCES;
}
