import type { Range } from './problem.ts';

/**
 * Where the cursor is in a blueprint, read from the text alone: while someone types, the line
 * under the cursor is often not valid YAML yet, so the tree cannot say. Block structure comes from
 * indentation (the nearest less-indented `key:` and `- ` lines above); a value written after a key
 * is read token by token, which finds flow collections `[ ... ]`, tags and quotes.
 */

/** Into the value of a mapping key. */
export interface KeyStep {
  kind: 'key';
  name: string;
  /** Tag of the mapping the key belongs to. */
  tag?: string;
}

/** Into an item of a sequence. */
export interface ItemStep {
  kind: 'item';
  /** Position in a flow sequence; items of block sequences are not counted. */
  index?: number;
  /** Offset where the item's content starts (where its node begins once parsed). */
  start: number;
  /** Tag of the sequence, e.g. '!Find'. */
  tag?: string;
  /** Text of the sequence's first item, when it is a scalar (the model of `!Find [model, ...]`). */
  first?: string;
}

export type ContextStep = KeyStep | ItemStep;

export interface CompletionContext {
  /** From the root: to the mapping that gets a key (slot `key`), or to the node being written. */
  path: ContextStep[];
  /**
   * key: a key of the mapping at `path`; value: the value at `path`; either: right after `- ` in
   * a block sequence, where a scalar item or the first key of a mapping item can follow.
   */
  slot: 'key' | 'value' | 'either';
  /** The word that an item replaces (what is typed around the cursor). */
  range: Range;
  /** The part of the word before the cursor. */
  typed: string;
  /** A tag written before the word on a scalar: `!KeyOf |`. */
  scalarTag?: string;
  /** The word is inside quotes: an item replaces its text only. */
  quoted: boolean;
  /** False inside a flow collection, where a key cannot open a block. */
  block: boolean;
  /** Column where the slot's node starts, and the document's indentation step (for inserted blocks). */
  column: number;
  indentUnit: number;
  /** Keys the mapping already has (slot `key` and `either`). */
  siblings: Set<string>;
  /** A `:` already follows the word: a key item inserts the name only. */
  colonFollows: boolean;
  /** The word directly follows `:` or `-`: an item starts with a space. */
  spaceBefore: boolean;
}

interface LineNode {
  kind: 'item' | 'key';
  column: number;
  /** Keys: the key text. */
  name?: string;
  /** After the `-` of an item or the `:` of a key. */
  valueStart: number;
  /** Offset of the item's content (after `- ` and spaces). */
  contentStart: number;
  /** What follows on the line, comment removed; '' when a key comes next on the line or nothing. */
  inline: string;
}

interface LineShape {
  nodes: LineNode[];
  /** Where non-structural content (a value, a word being typed) starts, if any. */
  content?: number;
  firstColumn: number;
  blank: boolean;
}

const isSpace = (char: string | undefined): boolean => char === ' ' || char === '\t' || char === '\r' || char === '\n';
const flowIndicators = ',[]{}';
/** Characters that cannot start a plain key (YAML indicators). */
const notKeyStart = '[]{}!&*|>#%@`,?-';

function lineEnd(text: string, start: number): number {
  const found = text.indexOf('\n', start);
  return found < 0 ? text.length : found;
}

function previousLine(text: string, start: number): number | undefined {
  // lastIndexOf clamps a negative position to 0, which would find the `\n` at 0 again.
  return start <= 0 ? undefined : start === 1 ? 0 : text.lastIndexOf('\n', start - 2) + 1;
}

/** Index of the quote closing the one at `open`, before `end`; -1 when there is none. */
function closingQuote(text: string, open: number, end: number): number {
  const quote = text[open];
  for (let at = open + 1; at < end; at++) {
    if (quote === '"' && text[at] === '\\') at++;
    else if (text[at] === quote) {
      if (quote === "'" && text[at + 1] === "'") at++;
      else return at;
    }
  }
  return -1;
}

/** A `key:` starting at `at` (plain or quoted), the colon followed by a space or the end. */
function keyAt(text: string, at: number, end: number): { name: string; colonEnd: number } | undefined {
  const first = text[at];
  if (first === '"' || first === "'") {
    const close = closingQuote(text, at, end);
    if (close < 0) return undefined;
    let colon = close + 1;
    while (colon < end && (text[colon] === ' ' || text[colon] === '\t')) colon++;
    if (text[colon] !== ':' || (colon + 1 < end && !isSpace(text[colon + 1]))) return undefined;
    return { name: text.slice(at + 1, close), colonEnd: colon + 1 };
  }
  if (first === undefined || notKeyStart.includes(first)) return undefined;
  for (let colon = at; colon < end; colon++) {
    if (text[colon] === '#' && isSpace(text[colon - 1])) return undefined;
    if (text[colon] === ':' && (colon + 1 >= end || isSpace(text[colon + 1]))) {
      return { name: text.slice(at, colon).trim(), colonEnd: colon + 1 };
    }
  }
  return undefined;
}

/** The rest of a line without its comment, trimmed. */
function inlineText(text: string, from: number, end: number): string {
  const rest = text.slice(from, end);
  const comment = rest.search(/(^|\s)#/);
  return (comment < 0 ? rest : rest.slice(0, comment)).trim();
}

/** The block structure of `text[start, end)`: its `- ` items and its `key:`, left to right. */
function shapeOf(text: string, start: number, end: number): LineShape {
  const nodes: LineNode[] = [];
  let at = start;
  while (at < end && (text[at] === ' ' || text[at] === '\t')) at++;
  const firstColumn = at - start;
  if (at >= end || text[at] === '#' || text[at] === '\r') return { nodes, firstColumn, blank: true };
  for (;;) {
    const column = at - start;
    if (text[at] === '-' && (at + 1 >= end || isSpace(text[at + 1]))) {
      let content = at + 1;
      while (content < end && (text[content] === ' ' || text[content] === '\t')) content++;
      nodes.push({ kind: 'item', column, valueStart: at + 1, contentStart: content, inline: '' });
      if (content >= end || text[content] === '\r') return { nodes, firstColumn, blank: false };
      at = content;
      continue;
    }
    const key = keyAt(text, at, end);
    const inline = inlineText(text, key ? key.colonEnd : at, end);
    if (!key) {
      const parent = nodes[nodes.length - 1];
      if (parent) parent.inline = inline;
      return { nodes, content: at, firstColumn, blank: false };
    }
    nodes.push({ kind: 'key', column, name: key.name, valueStart: key.colonEnd, contentStart: at, inline });
    return { nodes, firstColumn, blank: false };
  }
}

/** Whether an inline value leaves room for a block below it: nothing, or only tags and anchors. */
const opensBlock = (inline: string): boolean => /^((![^\s]*|&[^\s]+)\s*)*$/.test(inline);

interface Enclosing {
  /** The enclosing items and keys, innermost first. */
  chain: LineNode[];
  /** Lines of content (not keys or items) were passed before the innermost one was found. */
  passedContent: boolean;
}

/**
 * The items and keys enclosing a node at `column` that starts on the line at `lineStart`: the
 * nearest line above with something less indented holds its parent, and so on up. A sequence may
 * sit at the same indentation as its key (`entries:` / `- model: ...`). Keys met at the node's own
 * level before its parent are its siblings.
 */
/** Lines starting at most this far in are indexed: an entry and its parents sit there in practice. */
const SHALLOW = 4;

let lastShallow: { text: string; starts: number[] } | undefined;

/**
 * Starts of the lines with content at column SHALLOW or less, kept for the last text: the walk up
 * from an entry to `entries:` visits only these instead of every line above.
 */
function shallowLines(text: string): number[] {
  if (lastShallow?.text === text) return lastShallow.starts;
  const starts: number[] = [];
  for (let start = 0; start < text.length; start = lineEnd(text, start) + 1) {
    let first = start;
    while (first - start <= SHALLOW && (text[first] === ' ' || text[first] === '\t')) first++;
    const lead = text[first];
    if (first - start <= SHALLOW && lead !== undefined && lead !== '\n' && lead !== '\r' && lead !== '#') {
      starts.push(start);
    }
  }
  lastShallow = { text, starts };
  return starts;
}

/** The line above `start` that may matter to a walk looking for content at column `target` or less. */
function lineAbove(text: string, start: number, target: number): number | undefined {
  if (target > SHALLOW) return previousLine(text, start);
  // Deeper lines would be skipped anyway: jump to the nearest shallow line above.
  const starts = shallowLines(text);
  let low = 0;
  let high = starts.length - 1;
  let found: number | undefined;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (starts[mid]! < start) {
      found = starts[mid];
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

function enclosingNodes(
  text: string,
  lineStart: number,
  column: number,
  isItem: boolean,
  siblings: Set<string>,
): Enclosing {
  const found: Enclosing = { chain: [], passedContent: false };
  let target = column;
  let item = isItem;
  for (let start = lineAbove(text, lineStart, target); start !== undefined; start = lineAbove(text, start, target)) {
    // Most lines above are deeper, blank, or sibling items: skip them without reading their shape,
    // since the walk may cross every entry above the cursor.
    let first = start;
    while (text[first] === ' ' || text[first] === '\t') first++;
    const firstColumn = first - start;
    const lead = text[first];
    if (lead === undefined || lead === '\n' || lead === '\r' || lead === '#' || firstColumn > target) continue;
    if (item && firstColumn === target && lead === '-' && (first + 1 >= text.length || isSpace(text[first + 1])))
      continue;
    const shape = shapeOf(text, start, lineEnd(text, start));
    if (shape.blank || shape.firstColumn > target) continue;
    const parent = shape.nodes.findLastIndex(
      (node) => node.column < target || (item && node.kind === 'key' && node.column === target && node.inline === ''),
    );
    const innermost = found.chain.length === 0;
    if (innermost && !item) {
      for (const node of shape.nodes.slice(parent + 1))
        if (node.kind === 'key' && node.column === target) siblings.add(node.name!);
    }
    if (parent < 0) {
      // Content less indented than the node (a flow's opening line): the node continues that value.
      if (innermost && shape.nodes.length === 0 && shape.firstColumn < target) found.passedContent = true;
      continue;
    }
    for (let at = parent; at >= 0; at--) found.chain.push(shape.nodes[at]!);
    target = shape.nodes[0]!.column;
    item = shape.nodes[0]!.kind === 'item';
    if (target === 0 && !item) break;
  }
  return found;
}

/** Keys at `column` below the line at `lineStart`, up to the end of the mapping. */
function siblingsBelow(text: string, lineStart: number, column: number, siblings: Set<string>): void {
  for (let start = lineEnd(text, lineStart) + 1; start <= text.length; start = lineEnd(text, start) + 1) {
    const shape = shapeOf(text, start, lineEnd(text, start));
    if (shape.blank || shape.firstColumn > column) continue;
    const first = shape.nodes[0];
    if (shape.firstColumn < column || first?.kind !== 'key') return;
    siblings.add(first.name!);
  }
}

/** The indentation step of the document: the first increase under a `key:` that opens a mapping. */
function indentUnitOf(text: string): number {
  let previous: LineShape | undefined;
  for (let start = 0; start < text.length; start = lineEnd(text, start) + 1) {
    const shape = shapeOf(text, start, lineEnd(text, start));
    if (shape.blank) continue;
    const opener =
      previous?.nodes.length === 1 && previous.nodes[0]!.kind === 'key' && previous.nodes[0]!.inline === '';
    if (opener && shape.firstColumn > previous!.firstColumn && shape.nodes[0]?.kind === 'key') {
      return shape.firstColumn - previous!.firstColumn;
    }
    previous = shape;
  }
  return 2;
}

/** The context at `at` (clamped to the text). Undefined where nothing can be completed. */
export function completionContext(text: string, at: number): CompletionContext | undefined {
  const offset = Math.max(0, Math.min(at, text.length));
  const context = readContext(text, offset);
  // Clients accept only a one-line range around the cursor (not, say, a string quoted lines above).
  return context && !text.slice(...context.range).includes('\n') ? context : undefined;
}

function readContext(text: string, offset: number): CompletionContext | undefined {
  const firstSignificant = text.match(/^(\s*#[^\n]*\n)*\s*(\S)/)?.[2];
  // A JSON blueprint (or a flow-style YAML one) is one flow collection from its first character.
  if (firstSignificant === '{' || firstSignificant === '[') {
    return fromValue(text, offset, { path: [], start: 0, column: 0, indentUnit: 2, siblings: new Set() });
  }
  const lineStart = offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
  const shape = shapeOf(text, lineStart, offset);
  if (shape.blank && text[lineStart + shape.firstColumn] === '#') return undefined;
  const onLine = shape.nodes;
  const last = onLine[onLine.length - 1];
  const siblings = new Set<string>();
  const column = (shape.content ?? offset) - lineStart;
  const outer = onLine[0] ?? { column, kind: 'key' };
  const enclosing = enclosingNodes(text, lineStart, outer.column, outer.kind === 'item', siblings);
  // Innermost first: the nodes on the cursor's line, then those above.
  const chain = [...onLine].reverse().concat(enclosing.chain);
  const base = { column, indentUnit: indentUnitOf(text), siblings };

  const typed = shape.content === undefined ? '' : text.slice(shape.content, offset);
  const wordLike = typed === '' || /^[^\s"'!&*|>[\]{}#,%@`][^\s]*$/.test(typed);
  // After `key:` on this line; or a value (an item's on this line, or one continuing from a key above).
  if (last?.kind === 'key') return fromBlockValue(text, offset, chain, base);
  if (!wordLike) return fromBlockValue(text, offset, chain, base, last ? shape.content : undefined);
  const parent = chain[0];
  if (!last && parent && (enclosing.passedContent || !opensBlock(parent.inline))) {
    return fromBlockValue(text, offset, chain, base);
  }
  // A scalar above encloses the line (a block scalar's text, say): no structure here.
  if (enclosing.chain.some((node) => !opensBlock(node.inline))) return undefined;
  siblingsBelow(text, lineStart, column, siblings);
  const wordStart = shape.content ?? offset;
  const wordEnd = scanWord(text, offset, (char) => isSpace(char) || char === ':');
  return {
    ...base,
    path: blockPath(chain),
    slot: last ? 'either' : 'key',
    range: [wordStart, wordEnd],
    typed,
    quoted: false,
    block: true,
    colonFollows: /^[ \t]*:/.test(text.slice(wordEnd, lineEnd(text, wordEnd))),
    spaceBefore: text[wordStart - 1] === '-',
  };
}

/** Steps from the root for a chain of enclosing nodes (innermost first). */
function blockPath(chain: readonly LineNode[]): ContextStep[] {
  return chain
    .map((node): ContextStep =>
      node.kind === 'key' ? { kind: 'key', name: node.name! } : { kind: 'item', start: node.contentStart },
    )
    .reverse();
}

/** Where the word at `offset` ends: the first character `stops` accepts, or the line end. */
function scanWord(text: string, offset: number, stops: (char: string) => boolean): number {
  let end = offset;
  while (end < text.length && !stops(text[end]!)) end++;
  return end;
}

interface BaseContext {
  path: ContextStep[];
  /** Where the value starts (after `key:` or `- `). */
  start: number;
  column: number;
  indentUnit: number;
  siblings: Set<string>;
}

/**
 * The value of `chain[0]` (a key, or an item) holds the cursor: read it from where it starts
 * (`from`, by default right after its `:` or `-`), through following lines if needed.
 */
function fromBlockValue(
  text: string,
  offset: number,
  chain: readonly LineNode[],
  base: Omit<BaseContext, 'path' | 'start'>,
  from?: number,
): CompletionContext | undefined {
  const owner = chain[0];
  if (!owner || chain.slice(1).some((node) => !opensBlock(node.inline))) return undefined;
  return fromValue(text, offset, { ...base, path: blockPath(chain), start: from ?? owner.valueStart });
}

interface FlowFrame {
  open: '[' | '{';
  tag?: string;
  index: number;
  itemStart?: number;
  first?: string;
  /** Mappings: the key of the current pair once its `:` is read, and the keys seen. */
  key?: string;
  afterColon: boolean;
  keys: Set<string>;
  /** The current item (or key) already has a complete node. */
  filled: boolean;
}

interface Token {
  /** plain and quoted scalars; `open`: a quote not closed before the cursor. */
  kind: 'tag' | 'plain' | 'quoted' | 'open';
  start: number;
  end: number;
  text: string;
  /** The tag written before a scalar. */
  tag?: string;
}

const newFrame = (open: '[' | '{', tag: string | undefined): FlowFrame => ({
  open,
  index: 0,
  afterColon: false,
  keys: new Set(),
  filled: false,
  ...(tag ? { tag } : {}),
});

/**
 * Reads a value from `base.start` to the cursor: tags, quoted and plain scalars and flow
 * collections. Undefined when the cursor is in a comment, a block scalar or after a complete value.
 */
function fromValue(text: string, offset: number, base: BaseContext): CompletionContext | undefined {
  const frames: FlowFrame[] = [];
  let tag: string | undefined;
  let last: Token | undefined;
  /** A complete value outside any flow collection: nothing can follow it. */
  let done = false;
  const scalar = (token: Token): Token => {
    tag = undefined;
    const frame = frames[frames.length - 1];
    if (!frame) done = true;
    else {
      if (frame.index === 0 && !frame.afterColon) frame.first = token.text;
      frame.filled = true;
    }
    return token;
  };
  let at = base.start;
  while (at < offset) {
    const char = text[at]!;
    if (isSpace(char)) {
      at++;
      continue;
    }
    if (char === '#' && (at === base.start || isSpace(text[at - 1]))) {
      at = lineEnd(text, at);
      if (at >= offset) return undefined;
      continue;
    }
    if (done) return undefined;
    const frame = frames[frames.length - 1];
    if (frame && frame.itemStart === undefined) frame.itemStart = at;
    if (char === '[' || char === '{') {
      frames.push(newFrame(char, tag));
      last = tag = undefined;
      at++;
    } else if (char === ']' || char === '}') {
      frames.pop();
      const outer = frames[frames.length - 1];
      if (outer) outer.filled = true;
      else done = true;
      last = tag = undefined;
      at++;
    } else if (frame && char === ',') {
      Object.assign(frame, { index: frame.index + 1, key: undefined, afterColon: false, filled: false });
      delete frame.itemStart;
      last = tag = undefined;
      at++;
    } else if (frame && char === ':' && (isPairColon(text, at) || (last?.kind === 'quoted' && last.end === at))) {
      frame.key = last?.kind === 'plain' || last?.kind === 'quoted' ? last.text : '';
      frame.keys.add(frame.key);
      Object.assign(frame, { afterColon: true, filled: false });
      last = tag = undefined;
      at++;
    } else if (char === '!') {
      const end = Math.min(
        offset,
        scanWord(text, at, (next) => isSpace(next) || flowIndicators.includes(next)),
      );
      last = { kind: 'tag', start: at, end, text: text.slice(at, end) };
      tag = last.text;
      at = end;
    } else if (char === '&') {
      at = scanWord(text, at, isSpace);
    } else if (char === '"' || char === "'") {
      const close = closingQuote(text, at, offset);
      if (close < 0) {
        return valueSlot(text, offset, base, frames, { kind: 'open', start: at + 1, end: offset, text: '' }, tag);
      }
      last = scalar({
        kind: 'quoted',
        start: at,
        end: close + 1,
        text: text.slice(at + 1, close),
        ...(tag ? { tag } : {}),
      });
      at = close + 1;
    } else if (!frame && (char === '|' || char === '>')) {
      return undefined;
    } else {
      const end = plainEnd(text, at, offset, frame !== undefined);
      const value = text.slice(at, end).trimEnd();
      // Trailing spaces are not part of the word: after `name: foo |` the value is complete.
      last = scalar({ kind: 'plain', start: at, end: at + value.length, text: value, ...(tag ? { tag } : {}) });
      at = end;
    }
  }
  // The word under the cursor: a tag being typed, or a plain scalar (not finished, whatever the reader thought).
  if (last && last.end === offset && (last.kind === 'tag' || last.kind === 'plain')) {
    return valueSlot(text, offset, base, frames, last);
  }
  if (done || frames[frames.length - 1]?.filled) return undefined;
  return valueSlot(text, offset, base, frames, undefined, tag);
}

/** A `:` that separates a key from its value: followed by a space, a flow indicator or the end. */
function isPairColon(text: string, at: number): boolean {
  const next = text[at + 1];
  return next === undefined || isSpace(next) || flowIndicators.includes(next);
}

/** The end of a plain scalar: the line end, or in a flow collection an indicator or `: `. */
function plainEnd(text: string, from: number, limit: number, flow: boolean): number {
  let end = from;
  while (end < limit) {
    const char = text[end]!;
    if (char === '\n' || (char === '#' && isSpace(text[end - 1]))) break;
    if (flow && (flowIndicators.includes(char) || (char === ':' && isPairColon(text, end)))) break;
    end++;
  }
  return end;
}

/** The context of `word` (or of an empty word at the cursor) inside the flow `frames`. */
function valueSlot(
  text: string,
  offset: number,
  base: BaseContext,
  frames: readonly FlowFrame[],
  word: Token | undefined,
  scalarTag = word?.kind === 'plain' ? word.tag : undefined,
): CompletionContext | undefined {
  const path = [...base.path];
  const innermost = frames[frames.length - 1];
  for (const frame of frames) {
    if (frame.open === '[') {
      const step: ItemStep = { kind: 'item', index: frame.index, start: frame.itemStart ?? offset };
      if (frame.tag) step.tag = frame.tag;
      if (frame.first !== undefined && frame.index > 0) step.first = frame.first;
      path.push(step);
    } else if (frame.afterColon) {
      path.push({ kind: 'key', name: frame.key ?? '', ...(frame.tag ? { tag: frame.tag } : {}) });
    } else if (frame !== innermost) return undefined;
  }
  const slot = innermost?.open === '{' && !innermost.afterColon ? 'key' : 'value';
  const quoted = word?.kind === 'open';
  const start = word?.start ?? offset;
  const end = quoted
    ? scanWord(text, offset, (char) => char === text[start - 1] || char === '\n')
    : scanWord(
        text,
        offset,
        (char) => isSpace(char) || flowIndicators.includes(char) || (slot === 'key' && char === ':'),
      );
  return {
    path,
    slot,
    range: [start, end],
    typed: text.slice(start, offset),
    ...(scalarTag ? { scalarTag } : {}),
    quoted,
    block: frames.length === 0,
    column: base.column,
    indentUnit: base.indentUnit,
    siblings: innermost ? innermost.keys : base.siblings,
    colonFollows: slot === 'key' && /^[ \t]*:/.test(text.slice(end, lineEnd(text, end))),
    spaceBefore: text[start - 1] === ':',
  };
}
