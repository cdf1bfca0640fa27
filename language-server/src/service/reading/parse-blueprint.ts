import { problem, syntaxAndTagCodes, type Problem, type Range } from '../problem.ts';
import type { BNode } from './blueprint-node.ts';
import { firstTooDeep, MAX_NESTING } from './nesting-depth.ts';
import { readYamlDocument } from './yaml-document-reader.ts';
import { readYamlFast, TooDeep, Unsupported } from './yaml-fast-reader.ts';

export interface ParseBlueprintOptions {
  /** JSON is parsed as YAML (it is a subset); the format only words the messages. */
  format?: 'yaml' | 'json';
  /**
   * The cache of the previous parse of the same document: entries whose text did not change are
   * taken over (moved to their new offsets) instead of read again. The previous result's tree
   * must not be used afterwards: its reused nodes now describe the new text.
   */
  previous?: ParseCache;
}

export interface ParseResult {
  root: BNode | undefined;
  problems: Problem[];
  /** What the next parse of the same document can reuse (`previous`). */
  cache: ParseCache;
}

/** One item of the entries sequences, read once and kept with what was found in it. */
export interface CachedItem {
  /** Offset of the item's first line in the text it was last part of. */
  start: number;
  /** Offset of the first line after it. */
  end: number;
  node: BNode;
  /** Problems found reading it (syntax, duplicate keys). */
  problems: readonly Problem[];
  /** Problems of checking it as an entry, kept by the language service once computed. */
  checks?: Problem[];
  /** Every node of the item, listed on its first move. */
  nodes?: BNode[];
}

/** Every field present from the start: one shape for the thousands of items, whatever is added later. */
const cachedItem = (start: number, end: number, node: BNode, problems: readonly Problem[]): CachedItem => ({
  start,
  end,
  node,
  problems,
  checks: undefined,
  nodes: undefined,
});

/** The problems of the many items read without any (never changed: moving an item replaces its list). */
const NO_PROBLEMS: readonly Problem[] = [];

/** Items of the root's sequences (`entries`, or its named groups) are read and cached one by one. */
const ITEM_DEPTH = 2;

/**
 * Reads a blueprint into BNodes with ranges. The fast reader handles the usual YAML; an entry it
 * does not handle is read alone by the `yaml` package, and a document it cannot split into
 * entries entirely so. Both give the same tree (a test compares them). Never throws.
 */
export function parseBlueprint(text: string, options: ParseBlueprintOptions = {}): ParseResult {
  const format = options.format ?? 'yaml';
  const problems: Problem[] = [];
  const reusable = options.previous ? unchangedItems(options.previous, text) : undefined;
  const cache = new ParseCache(text);
  const keep = (item: CachedItem): void => {
    for (let i = 0; i < item.problems.length; i++) problems.push(item.problems[i]!);
    cache.add(item);
  };
  try {
    const root = readYamlFast(text, problems, {
      itemDepth: ITEM_DEPTH,
      maxNesting: MAX_NESTING,
      // A first parse has nothing to reuse: no call per item to find that out.
      ...(reusable && {
        reuse: (start: number) => {
          const item = reusable(start);
          if (item) keep(item);
          return item;
        },
      }),
      item: (start, end, read, level) => {
        const item = readItem(text, start, end, level, format, problems, read);
        keep(item);
        return item.node;
      },
    });
    return { root, problems, cache };
  } catch (error) {
    if (error instanceof TooDeep) return tooDeep(text, error.offset);
    // Unsupported, or a defect of the fast reader: the general parser is the authority. It
    // recurses per level, so text nested too deep is refused before it reads it.
    const deep = firstTooDeep(text, MAX_NESTING);
    if (deep !== undefined) return tooDeep(text, deep);
    return { ...readYamlDocument(text, format), cache: new ParseCache(text) };
  }
}

function tooDeep(text: string, offset: number): ParseResult {
  const message = `Nested deeper than ${MAX_NESTING} levels: the blueprint is not checked further.`;
  const range: Range = [offset, Math.min(offset + 1, text.length)];
  const problems = [problem(syntaxAndTagCodes, 'nesting-too-deep', range, message)];
  return { root: undefined, problems, cache: new ParseCache(text) };
}

function readItem(
  text: string,
  start: number,
  end: number,
  level: number,
  format: 'yaml' | 'json',
  problems: Problem[],
  read: () => BNode,
): CachedItem {
  const before = problems.length;
  try {
    const node = read();
    return cachedItem(start, end, node, problems.length > before ? problems.splice(before) : NO_PROBLEMS);
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    problems.length = before;
  }
  // The slice's sequence (its level 1) stands for the item's sequence, at `level` of the document
  // (2 for `entries`, 3 for a named group's).
  const deep = firstTooDeep(text.slice(start, end), MAX_NESTING - (level - 1));
  if (deep !== undefined) throw new TooDeep(start + deep);
  const alone = readYamlDocument(text.slice(start, end), format);
  const root = alone.root;
  // An alias may point into another item: only the whole document can resolve it.
  if (root?.kind !== 'seq' || root.items.length !== 1 || containsAlias(root)) throw new Unsupported('not one item');
  const item = cachedItem(0, end - start, root.items[0]!, alone.problems);
  moveItem(item, start);
  return item;
}

/**
 * The items of the previous parse whose text is unchanged. Items before the first changed line
 * stay in place and items after the last change move by the change in length, found by offset
 * alone. Between the two (edits spread over the document), each item is first looked for where
 * the items before it say it should be: an edited item moves those after it by its change in
 * length. Items moved or copied elsewhere are found by their first line. An item is reused only
 * when its text is the same and it would end at the same line here. Each is handed out once.
 */
function unchangedItems(previous: ParseCache, text: string): (start: number) => CachedItem | undefined {
  const old = previous.text;
  const prefix = commonPrefix(old, text);
  const suffix = commonSuffix(old, text, Math.min(old.length, text.length) - prefix);
  const delta = text.length - old.length;
  const identical = prefix === old.length && prefix === text.length;
  /** How far the items between the changes have moved, as of the last one found. */
  let shift = 0;
  /** The old item where the last item read afresh was: the next one should follow it. */
  let replaced: CachedItem | undefined;
  let byFirstLine: Map<string, Candidates> | undefined;
  const reuse = (item: CachedItem | undefined, start: number): CachedItem | undefined => {
    if (!item || !previous.holds(item)) return undefined;
    const length = item.end - item.start;
    if (!text.startsWith(old.slice(item.start, item.end), start) || !endsItem(text, start + length, start)) {
      return undefined;
    }
    previous.take(item.start, (found) => found === item);
    shift = start - item.start;
    moveItem(item, start);
    return item;
  };
  return (start) => {
    const inPlace = previous.take(
      start,
      (item) => identical || (item.end < old.length && lineEndOf(old, item.end) < prefix),
    );
    if (inPlace) return inPlace;
    const moved = previous.take(start - delta, (item) => item.start >= old.length - suffix);
    if (moved) {
      moveItem(moved, start);
      return moved;
    }
    const expected = previous.at(start - shift);
    const after = replaced && previous.at(replaced.end);
    replaced = undefined;
    const found = reuse(expected, start) ?? reuse(after, start);
    if (found) return found;
    if (expected) {
      replaced = expected;
      return undefined;
    }
    byFirstLine ??= previous.byFirstLine(prefix, old.length - suffix);
    const candidates = byFirstLine.get(text.slice(start, lineEndOf(text, start)));
    if (!candidates) return undefined;
    // Items of the same first line are tried in document order, at most a few per item (a file of
    // thousands of alike entries must not make this quadratic): the ones already taken at the
    // front are passed for good, and a miss means the item changed and is read again.
    while (candidates.next < candidates.items.length && !previous.holds(candidates.items[candidates.next]!)) {
      candidates.next++;
    }
    const last = Math.min(candidates.items.length, candidates.next + MAX_CANDIDATES);
    for (let i = candidates.next; i < last; i++) if (reuse(candidates.items[i], start)) return candidates.items[i];
    return undefined;
  };
}

/** Cached items of one first line, in document order; those before `next` are all taken. */
interface Candidates {
  items: CachedItem[];
  next: number;
}

/** Items of one first line tried for one place, at most. */
const MAX_CANDIDATES = 8;

function lineEndOf(text: string, at: number): number {
  const found = text.indexOf('\n', at);
  return found < 0 ? text.length : found;
}

/**
 * Whether an item whose first line starts at `itemStart` ends at `at`, as the reader decides:
 * the text ends there, or the line there has content indented no deeper than the item's dash
 * (blank, comment and deeper lines belong to the item). An item reused without this check would
 * leave the reader on a line it does not expect, and the whole text to the general parser.
 */
function endsItem(text: string, at: number, itemStart: number): boolean {
  if (at >= text.length) return at === text.length;
  let first = at;
  while (text.charCodeAt(first) === 32) first++;
  let dash = itemStart;
  while (text.charCodeAt(dash) === 32) dash++;
  const ch = text.charCodeAt(first);
  return first < text.length && ch !== 10 && ch !== 35 && first - at <= dash - itemStart;
}

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let at = 0;
  // Whole blocks first: comparing slices runs in native code.
  while (at + 4096 <= limit && a.slice(at, at + 4096) === b.slice(at, at + 4096)) at += 4096;
  while (at < limit && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

function commonSuffix(a: string, b: string, limit: number): number {
  let length = 0;
  while (length + 4096 <= limit && a.slice(a.length - length - 4096, a.length - length) === b.slice(b.length - length - 4096, b.length - length)) {
    length += 4096;
  }
  while (length < limit && a.charCodeAt(a.length - length - 1) === b.charCodeAt(b.length - length - 1)) length++;
  return length;
} // prettier-ignore

function containsAlias(root: BNode): boolean {
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === 'alias') return true;
    if (node.kind === 'seq') for (const child of node.items) pending.push(child);
    else if (node.kind === 'map') for (const entry of node.entries) pending.push(entry.key, entry.value);
  }
  return false;
}

/** The items of one parse, by offset (for the next parse) and by node (for the checks). */
export class ParseCache {
  private readonly byStart = new Map<number, CachedItem>();
  private readonly byNode = new Map<BNode, CachedItem>();

  constructor(readonly text: string) {}

  add(item: CachedItem): void {
    this.byStart.set(item.start, item);
    this.byNode.set(item.node, item);
  }

  /** The item that started at `start`, if `usable` accepts it; each is handed out once. */
  take(start: number, usable: (item: CachedItem) => boolean): CachedItem | undefined {
    const item = this.byStart.get(start);
    if (!item || !usable(item)) return undefined;
    this.byStart.delete(start);
    return item;
  }

  itemOf(node: BNode): CachedItem | undefined {
    return this.byNode.get(node);
  }

  /** The item not yet handed out that started at `start`. */
  at(start: number): CachedItem | undefined {
    return this.byStart.get(start);
  }

  /** Whether `item` is still here to be taken. */
  holds(item: CachedItem): boolean {
    return this.byStart.get(item.start) === item;
  }

  /** The items not yet handed out that overlap [from, to), by their first line, in document order. */
  byFirstLine(from: number, to: number): Map<string, Candidates> {
    const found = new Map<string, Candidates>();
    for (const item of this.byStart.values()) {
      if (item.end < from || item.start > to) continue;
      const key = this.text.slice(item.start, lineEndOf(this.text, item.start));
      const list = found.get(key);
      if (list) list.items.push(item);
      else found.set(key, { items: [item], next: 0 });
    }
    return found;
  }
}

const shiftProblems = (problems: readonly Problem[], delta: number): Problem[] =>
  problems.map((found) => {
    const moved: Problem = { ...found, range: [found.range[0] + delta, found.range[1] + delta] };
    if (found.fixes) {
      moved.fixes = found.fixes.map((fix) => ({
        ...fix,
        edits: fix.edits.map((edit) => ({ ...edit, range: [edit.range[0] + delta, edit.range[1] + delta] })),
      }));
    }
    return moved;
  });

/**
 * Moves an item's node tree and problems to a new offset. Node offsets change in place (mapping
 * entries take theirs from their nodes; no two nodes share a tag range array, and problems copy
 * theirs); problems are replaced, since earlier results handed out may still hold them. Typing
 * moves every item below the cursor on each keystroke: the item's nodes are listed once, so that
 * later moves are one flat loop.
 */
function moveItem(item: CachedItem, start: number): void {
  const delta = start - item.start;
  if (delta === 0) return;
  item.start = start;
  item.end += delta;
  if (item.problems.length > 0) item.problems = shiftProblems(item.problems, delta);
  if (item.checks && item.checks.length > 0) item.checks = shiftProblems(item.checks, delta);
  item.nodes ??= nodesOf(item.node);
  for (const node of item.nodes) {
    node.start += delta;
    node.end += delta;
    if (node.tagRange) {
      node.tagRange[0] += delta;
      node.tagRange[1] += delta;
    }
  }
}

function nodesOf(root: BNode): BNode[] {
  const nodes: BNode[] = [];
  const pending: BNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    nodes.push(node);
    if (node.kind === 'seq') for (const child of node.items) pending.push(child);
    else if (node.kind === 'map') for (const entry of node.entries) pending.push(entry.key, entry.value);
  }
  return nodes;
}
