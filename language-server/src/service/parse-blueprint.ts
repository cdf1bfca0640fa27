import type { BNode } from './blueprint-node.ts';
import { firstTooDeep, MAX_NESTING } from './nesting-depth.ts';
import { problem, syntaxAndTagCodes, type Problem, type Range } from './problem.ts';
import { readYamlDocument } from './yaml-document-reader.ts';
import { readYamlFast, Unsupported } from './yaml-fast-reader.ts';

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
  problems: Problem[];
  /** Problems of checking it as an entry, kept by the language service once computed. */
  checks?: Problem[];
}

/** Items of the root's sequences (`entries`, or its named groups) are read and cached one by one. */
const ITEM_DEPTH = 2;

/**
 * Reads a blueprint into BNodes with ranges. The fast reader handles the usual YAML; an entry it
 * does not handle is read alone by the `yaml` package, and a document it cannot split into
 * entries entirely so. Both give the same tree (a test compares them). Never throws.
 */
export function parseBlueprint(text: string, options: ParseBlueprintOptions = {}): ParseResult {
  const format = options.format ?? 'yaml';
  const cache = new ParseCache(text);
  // Both parsers recurse per level: text nested too deep is refused before either reads it.
  const tooDeep = firstTooDeep(text, MAX_NESTING);
  if (tooDeep !== undefined) {
    const message = `Nested deeper than ${MAX_NESTING} levels: the blueprint is not checked further.`;
    const range: Range = [tooDeep, Math.min(tooDeep + 1, text.length)];
    return { root: undefined, problems: [problem(syntaxAndTagCodes, 'nesting-too-deep', range, message)], cache };
  }
  const problems: Problem[] = [];
  const reusable = options.previous ? unchangedItems(options.previous, text) : undefined;
  const keep = (item: CachedItem): void => {
    for (const found of item.problems) problems.push(found);
    cache.add(item);
  };
  try {
    const root = readYamlFast(text, problems, {
      itemDepth: ITEM_DEPTH,
      reuse: (start) => {
        const item = reusable?.(start);
        if (item) keep(item);
        return item;
      },
      item: (start, end, read) => {
        const item = readItem(text, start, end, format, problems, read);
        keep(item);
        return item.node;
      },
    });
    return { root, problems, cache };
  } catch {
    // Unsupported, or a defect of the fast reader: the general parser is the authority.
    return { ...readYamlDocument(text, format), cache: new ParseCache(text) };
  }
}

function readItem(
  text: string,
  start: number,
  end: number,
  format: 'yaml' | 'json',
  problems: Problem[],
  read: () => BNode,
): CachedItem {
  const before = problems.length;
  try {
    const node = read();
    return { start, end, node, problems: problems.splice(before) };
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    problems.length = before;
  }
  const alone = readYamlDocument(text.slice(start, end), format);
  const root = alone.root;
  // An alias may point into another item: only the whole document can resolve it.
  if (root?.kind !== 'seq' || root.items.length !== 1 || containsAlias(root)) throw new Unsupported('not one item');
  const item: CachedItem = { start: 0, end: end - start, node: root.items[0]!, problems: alone.problems };
  moveItem(item, start);
  return item;
}

/**
 * The items of the previous parse whose text (and the line after it, which ends them) is
 * unchanged: those before the first changed character stay in place, those after the last one
 * move by the change in length. Each is handed out once.
 */
function unchangedItems(previous: ParseCache, text: string): (start: number) => CachedItem | undefined {
  const old = previous.text;
  const prefix = commonPrefix(old, text);
  const suffix = commonSuffix(old, text, Math.min(old.length, text.length) - prefix);
  const delta = text.length - old.length;
  const identical = prefix === old.length && prefix === text.length;
  const lineAfter = (offset: number): number => {
    const found = old.indexOf('\n', offset);
    return found < 0 ? old.length : found;
  };
  return (start) => {
    const inPlace = previous.take(
      start,
      (item) => identical || (item.end < old.length && lineAfter(item.end) < prefix),
    );
    if (inPlace) return inPlace;
    const moved = previous.take(start - delta, (item) => item.start >= old.length - suffix);
    if (moved) moveItem(moved, start);
    return moved;
  };
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

const shift = (range: Range, delta: number): void => {
  range[0] += delta;
  range[1] += delta;
};

/**
 * Moves an item's node tree and problems to a new offset. Node ranges change in place (no two
 * nodes share a range array, and problems copy theirs); problems are replaced, since earlier
 * results handed out may still hold them.
 */
function moveItem(item: CachedItem, start: number): void {
  const delta = start - item.start;
  if (delta === 0) return;
  item.start = start;
  item.end += delta;
  item.problems = shiftProblems(item.problems, delta);
  if (item.checks) item.checks = shiftProblems(item.checks, delta);
  const pending: BNode[] = [item.node];
  while (pending.length > 0) {
    const node = pending.pop()!;
    shift(node.range, delta);
    if (node.tagRange) shift(node.tagRange, delta);
    if (node.kind === 'seq') for (const child of node.items) pending.push(child);
    else if (node.kind === 'map') {
      for (const entry of node.entries) {
        shift(entry.range, delta);
        pending.push(entry.key, entry.value);
      }
    }
  }
}
