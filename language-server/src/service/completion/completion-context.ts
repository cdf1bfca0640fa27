import type { Range } from '../problem.ts';
import {
  closingQuote,
  enclosingNodes,
  flowIndicators,
  indentUnitOf,
  isSpace,
  lineEnd,
  opensBlock,
  shapeOf,
  siblingsBelow,
  type LineNode,
} from './completion-lines.ts';

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
