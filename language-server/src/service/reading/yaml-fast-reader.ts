import type { Problem } from '../problem.ts';
import {
  mapEntry,
  mapNode,
  scalarNode,
  seqNode,
  type BEntry,
  type BNode,
  type BScalar,
  type ScalarValue,
} from './blueprint-node.ts';
import { reportDuplicateKeys } from './yaml-duplicate-keys.ts';

/**
 * A reader for the YAML that blueprints are written in (block mappings and sequences, flow
 * collections, plain, quoted and block scalars, tags, comments), straight from the text into
 * BNodes, several times faster than the general parser. It gives the same tree as the `yaml`
 * package (YAML 1.1, as the service reads blueprints) and throws `Unsupported` on anything else:
 * anchors, aliases, multi-line flow scalars, complex keys, directives, tabs or CR line breaks,
 * unusual number forms and every syntax error. The caller then asks the `yaml` package.
 */
export class Unsupported extends Error {}

/** Thrown by a reader that found a collection nested deeper than it may go, at `offset`. */
export class TooDeep extends Error {
  constructor(readonly offset: number) {
    super(`nested too deep at offset ${offset}`);
  }
}

/**
 * The character codes the YAML scanners compare `charCodeAt` results with. A `const enum` in the
 * file that uses it most: esbuild writes each member as its number there, under tsx (the CLI and
 * the bench) as in the bundle. Imported constants are module bindings, loaded on every compare
 * by the interpreter and the optimised code alike; as numbers, a cold validation of 10,000
 * entries under tsx took ~9% less time (median of 2 × 20 alternating runs).
 */
export const enum Char {
  Tab = 9,
  Nl = 10,
  Cr = 13,
  Space = 32,
  Bang = 33,
  DoubleQuote = 34,
  Hash = 35,
  Ampersand = 38,
  SingleQuote = 39,
  Comma = 44,
  Dash = 45,
  Colon = 58,
  Greater = 62,
  LeftBracket = 91,
  Backslash = 92,
  RightBracket = 93,
  LeftBrace = 123,
  Pipe = 124,
  RightBrace = 125,
}

/** One instance: the reader throws it often on odd input, and a stack trace is never needed. */
const UNSUPPORTED = new Unsupported('YAML outside the fast subset');
const unsupported = (): never => {
  if (process.env.FAST_DEBUG) console.trace('unsupported');
  throw UNSUPPORTED;
};

export interface FastReadOptions {
  /** Items of block sequences nested at most this deep (the root node is depth 0) go through the hooks. */
  itemDepth?: number;
  /** An item already known at this line start (the text there is unchanged): its node and where it ends. */
  reuse?: (start: number) => { node: BNode; end: number } | undefined;
  /**
   * Reads one block sequence item: `start` is the start of the item's line, `end` the start of
   * the next line that does not belong to it. `read` reads it in place; the hook may read the
   * text another way instead. `level`: the level of the item's sequence (the root is level 1).
   */
  item?: (start: number, end: number, read: () => BNode, level: number) => BNode;
  /** Collections nested deeper than this (the root is level 1) throw `TooDeep`: the reader recurses per level. */
  maxNesting?: number;
}

/** First characters that make the general parser's job: anchors, aliases, directives, reserved, stray indicators. */
const unsupportedStarts = new Set([
  Char.Ampersand,
  42 /* * */,
  37 /* % */,
  64 /* @ */,
  96 /* ` */,
  Char.Comma,
  Char.RightBracket,
  Char.RightBrace,
]);

const escapes: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029', ' ': ' ', '"': '"', '/': '/', '\\': '\\', '\t': '\t',
}; // prettier-ignore

const nullPattern = /^(?:~|[Nn]ull|NULL)$/;
const truePattern = /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const falsePattern = /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;
const decimalPattern = /^[-+]?(?:0|[1-9][0-9]*)$/;
const floatPattern = /^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$|^[-+]?[0-9]+[eE][-+]?[0-9]+$/;
const infinityPattern = /^([-+]?)\.(?:inf|Inf|INF)$/;
const nanPattern = /^\.(?:nan|NaN|NAN)$/;
/** YAML 1.1 number and date forms left to the general parser: 0b, 0x, octal, `_`, base 60, timestamps. */
const otherNumberPattern = /^[-+]?(?:0[bx0-9_]|[0-9][0-9_]*[_:]|\.[0-9_]*_)|^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|^[-+]?\.$/;

/** Slots of the table of recent keys and tags (a power of two): a blueprint has a few hundred distinct ones. */
const TEXT_SLOTS = 512;

/** The engine's own copy of a string (as property names are kept): compared with the schema's names by identity. */
const internalized = (value: string): string => Object.keys({ [value]: 0 })[0] ?? value;

/** A plain scalar's value under the YAML 1.1 schema of the service's loader. */
function resolvePlain(source: string): ScalarValue {
  const first = source.charCodeAt(0);
  const numeric = (first >= 48 && first <= 57) || first === 43 || first === Char.Dash || first === 46;
  if (!numeric) {
    // Every YAML 1.1 null and boolean word is 1-5 characters long: most plain strings skip the patterns.
    if (source.length > 5) return source;
    if (nullPattern.test(source)) return null;
    if (truePattern.test(source)) return true;
    if (falsePattern.test(source)) return false;
    return source;
  }
  if (decimalPattern.test(source)) return Number(source);
  if (floatPattern.test(source)) return parseFloat(source);
  if (otherNumberPattern.test(source)) return unsupported();
  const infinity = infinityPattern.exec(source);
  if (infinity) return infinity[1] === '-' ? -Infinity : Infinity;
  if (nanPattern.test(source)) return NaN;
  return source;
}

/** Reads a whole text; `undefined` when it holds no node. Throws `Unsupported`. */
export function readYamlFast(text: string, problems: Problem[], options: FastReadOptions = {}): BNode | undefined {
  const len = text.length;
  const itemDepth = options.itemDepth ?? -1;
  const itemHook = options.item;
  const reuseHook = options.reuse;
  const maxNesting = options.maxNesting ?? Infinity;
  /**
   * Collections open around the one being read. A thrown error abandons the reader, except inside
   * an item hook, which may read the item another way: the item's caller restores the count.
   */
  let open = 0;
  const enter = (at: number): void => {
    if (++open > maxNesting) throw new TooDeep(at);
  };
  /** Start of the next line with content, after the node just read (or `len`). */
  let next = 0;
  // The entries and items of the collections open, on two stacks that every level shares (from
  // `base` to the top: its own): a collection's array is made once it ends, of its length. An
  // array of its own, filled by `push`, got room for 17 on the first push (most collections hold
  // 1-8), then a copy of its length to be kept: ~6 MB of garbage for 10,000 entries.
  const entryStack: BEntry[] = [];
  let entryTop = 0;
  const itemStack: BNode[] = [];
  let itemTop = 0;

  const code = (at: number): number => text.charCodeAt(at);
  const lineEnd = (at: number): number => {
    const found = text.indexOf('\n', at);
    return found < 0 ? len : found;
  };
  const skipSpaces = (at: number): number => {
    while (code(at) === Char.Space) at++;
    return at;
  };
  /** Whether `at` ends a token: a space, a line break or the end of the text. */
  const blankAt = (at: number): boolean => at >= len || code(at) === Char.Space || code(at) === Char.Nl;
  const indentOf = (lineStart: number): number => skipSpaces(lineStart) - lineStart;
  const lineStartOf = (at: number): number => text.lastIndexOf('\n', at - 1) + 1;

  /** `---`, `...` or a `%` directive at the start of a line: documents and directives are not ours. */
  const markerAt = (lineStart: number): boolean => {
    const first = code(lineStart);
    if (first === 37 /* % */) return true;
    if (first !== Char.Dash && first !== 46) return false;
    return code(lineStart + 1) === first && code(lineStart + 2) === first && blankAt(lineStart + 3);
  };

  /** Start of the first line from `lineStart` on with content other than spaces and a comment. */
  const nextContentLine = (lineStart: number): number => {
    let at = lineStart;
    while (at < len) {
      const first = skipSpaces(at);
      if (first >= len) return len;
      const ch = code(first);
      if (ch === Char.Nl) at = first + 1;
      else if (ch === Char.Hash) at = lineEnd(first) + 1;
      else {
        if (ch === Char.Tab || ch === Char.Cr || (first === at && markerAt(at))) unsupported();
        return at;
      }
    }
    return len;
  };

  /** After a node on its line: only spaces and a comment may follow. Sets `next`. */
  const finishLine = (at: number): void => {
    const end = skipSpaces(at);
    if (end >= len) {
      next = len;
      return;
    }
    const ch = code(end);
    if (ch === Char.Hash && end > at) next = nextContentLine(lineEnd(end) + 1);
    else if (ch === Char.Nl) next = nextContentLine(end + 1);
    else unsupported();
  };

  const tagFields = (tag: [number, number]) => ({ tag: tagName(tag[0], tag[1]), tagRange: tag });
  const scalar = (value: ScalarValue, start: number, end: number, tag?: [number, number]): BScalar =>
    tag ? scalarNode(value, tag[0], end, tagFields(tag)) : scalarNode(value, start, end);

  /** A tag at `at`: `!Name` only (no `!!` standard tags, no verbatim or handle forms). */
  const readTag = (at: number): [number, number] => {
    let end = at + 1;
    for (;;) {
      const ch = code(end);
      const word =
        (ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95 || ch === Char.Dash;
      if (!word) break;
      end++;
    }
    if (end === at + 1 || !blankAt(end)) unsupported();
    return [at, end];
  };

  // ---- scalars on one line ----

  // Second results of the scanners below, kept in variables: no object is allocated per token.
  /** Where `plainEnd` found a mapping colon (`: `), or -1. */
  let plainColon = -1;
  /** The offset after the closing quote of the last `readQuoted`. */
  let quotedEnd = 0;
  /** The offset after the `:` of the last key `readKey` found. */
  let keyAfter = 0;

  /** The end of a plain scalar in block context from `at`, on this line (sets `plainColon`). */
  const plainEnd = (at: number): number => {
    let end = at;
    plainColon = -1;
    for (let i = at; i < len; i++) {
      const ch = code(i);
      if (ch === Char.Nl) break;
      if (ch === Char.Tab || ch === Char.Cr) unsupported();
      if (ch === Char.Colon && blankAt(i + 1)) {
        plainColon = i;
        break;
      }
      if (ch === Char.Hash && code(i - 1) === Char.Space) break;
      if (ch !== Char.Space) end = i + 1;
    }
    return end;
  };

  /** A quoted scalar on one line: its value (sets `quotedEnd`). */
  const readQuoted = (at: number): string => {
    const quote = code(at);
    let value = '';
    let chunk = at + 1;
    for (let i = at + 1; i < len; i++) {
      const ch = code(i);
      if (ch === Char.Nl || ch === Char.Cr) unsupported();
      if (quote === Char.SingleQuote) {
        if (ch !== Char.SingleQuote) continue;
        value += text.slice(chunk, i);
        if (code(i + 1) !== Char.SingleQuote) {
          quotedEnd = i + 1;
          return value;
        }
        value += "'";
        i++;
        chunk = i + 1;
      } else if (ch === Char.DoubleQuote) {
        quotedEnd = i + 1;
        return value + text.slice(chunk, i);
      } else if (ch === Char.Backslash) {
        value += text.slice(chunk, i) + readEscape(i);
        i += escapeLength(i);
        chunk = i + 1;
      }
    }
    return unsupported();
  };
  const escapeLength = (at: number): number => {
    const kind = text[at + 1];
    return kind === 'x' ? 3 : kind === 'u' ? 5 : kind === 'U' ? 9 : 1;
  };
  const readEscape = (at: number): string => {
    const kind = text[at + 1] ?? '';
    const simple = escapes[kind];
    if (simple !== undefined) return simple;
    const digits = kind === 'x' ? 2 : kind === 'u' ? 4 : kind === 'U' ? 8 : 0;
    const hex = text.slice(at + 2, at + 2 + digits);
    if (digits === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) return unsupported();
    const point = parseInt(hex, 16);
    return point > 0x10ffff ? unsupported() : String.fromCodePoint(point);
  };

  // The same keys and tags come back in every entry: each distinct text is one shared string, the
  // engine's own copy (kept once, not once per node; compared by identity). One read before is
  // found where it is written, without a slice and its hash (most of the cost of a key): the slot
  // of its length and end characters holds the last shared string seen there, compared in place.
  const recentTexts: (string | undefined)[] = new Array<undefined>(TEXT_SLOTS).fill(undefined);
  const sharedTexts = new Map<string, string>();
  const slotOf = (at: number, end: number): number =>
    ((end - at) * 31 + code(at) * 7 + code(end - 1)) & (TEXT_SLOTS - 1);
  const recentText = (slot: number, at: number, end: number): string | undefined => {
    const recent = recentTexts[slot];
    return recent !== undefined && recent.length === end - at && text.startsWith(recent, at) ? recent : undefined;
  };
  const share = (source: string, slot: number): string => {
    let shared = sharedTexts.get(source);
    if (shared === undefined) {
      shared = internalized(source);
      sharedTexts.set(source, shared);
    }
    recentTexts[slot] = shared;
    return shared;
  };
  /** A plain key's value (a plain key never starts with `!`, so no tag's string is found in its slot). */
  const plainKey = (at: number, end: number): ScalarValue => {
    const slot = slotOf(at, end);
    const known = recentText(slot, at, end);
    if (known !== undefined) return known;
    const source = text.slice(at, end);
    if (source === '<<') unsupported();
    const value = resolvePlain(source);
    return typeof value === 'string' ? share(value, slot) : value;
  };
  const tagName = (at: number, end: number): string => {
    const slot = slotOf(at, end);
    return recentText(slot, at, end) ?? share(text.slice(at, end), slot);
  };

  /** A key at `at` (plain or quoted) followed by `:` (sets `keyAfter`); undefined when the text there is not a key. */
  const readKey = (at: number): BScalar | undefined => {
    const first = code(at);
    if (first === Char.SingleQuote || first === Char.DoubleQuote) {
      const value = readQuoted(at);
      const end = quotedEnd;
      const colon = skipSpaces(end);
      if (code(colon) !== Char.Colon || !blankAt(colon + 1)) return undefined;
      keyAfter = colon + 1;
      return scalar(value, at, end);
    }
    if (first === Char.LeftBracket || first === Char.LeftBrace || first === Char.Bang || first === 63 /* ? */)
      return undefined;
    if (unsupportedStarts.has(first) || first === Char.Pipe || first === Char.Greater) unsupported();
    const end = plainEnd(at);
    if (plainColon < 0) return undefined;
    if (end === at || end - at > 1024) unsupported();
    keyAfter = plainColon + 1;
    return scalar(plainKey(at, end), at, end);
  };

  // ---- block scalars ----

  /** `|` or `>` at `at`; `parentIndent` is the column of the collection that owns it. Sets `next`. */
  const readBlockScalar = (at: number, parentIndent: number, tag?: [number, number]): BScalar => {
    const folded = code(at) === Char.Greater;
    let chomp = 'clip';
    let headerEnd = at + 1;
    const indicator = code(headerEnd);
    if (indicator === Char.Dash || indicator === 43 /* + */) {
      chomp = indicator === Char.Dash ? 'strip' : 'keep';
      headerEnd++;
    }
    if (code(headerEnd) >= 48 && code(headerEnd) <= 57) unsupported();
    const afterHeader = skipSpaces(headerEnd);
    const hasComment = code(afterHeader) === Char.Hash && afterHeader > headerEnd;
    if (!hasComment && afterHeader < len && code(afterHeader) !== Char.Nl) unsupported();

    const lines: string[] = [];
    let lineStart = lineEnd(afterHeader) + 1;
    let indent = -1;
    let widestBlank = 0;
    let lastContentEnd = headerEnd;
    while (lineStart < len) {
      const first = skipSpaces(lineStart);
      const ch = code(first);
      const blank = first >= len || ch === Char.Nl;
      if (blank) {
        if (indent < 0) widestBlank = Math.max(widestBlank, first - lineStart);
        else if (first - lineStart > indent) unsupported();
        lines.push('');
        if (first >= len) break;
        lineStart = first + 1;
        continue;
      }
      if (indent < 0) {
        if (first - lineStart <= parentIndent) break;
        indent = first - lineStart;
        if (widestBlank > indent) unsupported();
      }
      if (first - lineStart < indent) break;
      if (lineStart === first && markerAt(lineStart)) unsupported();
      const end = lineEnd(first);
      for (let i = lineStart; i < end; i++) if (code(i) === Char.Cr) unsupported();
      if (code(lineStart + indent) === Char.Tab) unsupported();
      if (folded && (code(lineStart + indent) === Char.Space || code(lineStart + indent) === Char.Tab)) unsupported();
      lines.push(text.slice(lineStart + indent, end));
      let trimmed = end;
      while (trimmed > first && (code(trimmed - 1) === Char.Space || code(trimmed - 1) === Char.Tab)) trimmed--;
      lastContentEnd = trimmed;
      if (end >= len) {
        lineStart = len;
        break;
      }
      lineStart = end + 1;
    }
    // Blank lines read past the last content line belong to the scalar only as trailing breaks.
    let lastContent = lines.length - 1;
    while (lastContent >= 0 && lines[lastContent] === '') lastContent--;
    if (lastContent < 0) {
      if (hasComment || chomp === 'keep') unsupported();
      next = nextContentLine(Math.min(lineStart, len));
      return scalar('', at, headerEnd, tag);
    }
    if (chomp === 'keep') unsupported();
    let value = '';
    if (folded) {
      let pendingBreaks = 0;
      for (let i = 0; i <= lastContent; i++) {
        const line = lines[i]!;
        if (line === '') pendingBreaks++;
        else {
          value += i === 0 ? '' : pendingBreaks > 0 ? '\n'.repeat(pendingBreaks) : ' ';
          value += line;
          pendingBreaks = 0;
        }
      }
    } else value = lines.slice(0, lastContent + 1).join('\n');
    if (chomp === 'clip') value += '\n';
    next = nextContentLine(Math.min(lineStart, len));
    return scalar(value, at, lastContentEnd, tag);
  };

  // ---- flow collections ----

  /** Skips spaces, line breaks and comments inside a flow collection; continuation lines must be indented. */
  const skipFlowSpace = (at: number, parentIndent: number): number => {
    for (;;) {
      const current = code(at);
      if (current === Char.Space) at++;
      else if (current === Char.Nl) {
        at++;
        const first = skipSpaces(at);
        const ch = code(first);
        const closer = ch === Char.RightBracket || ch === Char.RightBrace;
        const indent = first - at;
        if (ch !== Char.Nl && ch !== Char.Hash && (indent < parentIndent || (indent === parentIndent && !closer)))
          unsupported();
        if (first === at && markerAt(at)) unsupported();
      } else if (current === Char.Hash && (code(at - 1) === Char.Space || code(at - 1) === Char.Nl)) at = lineEnd(at);
      else if (current === Char.Tab || current === Char.Cr) return unsupported();
      else return at;
    }
  };

  /** A plain scalar inside a flow collection, ending at an indicator or at the end of the line. */
  const flowPlainEnd = (at: number): number => {
    let end = at;
    for (let i = at; i < len; i++) {
      const ch = code(i);
      if (
        ch === Char.Nl ||
        ch === Char.Comma ||
        ch === Char.LeftBracket ||
        ch === Char.RightBracket ||
        ch === Char.LeftBrace ||
        ch === Char.RightBrace
      )
        break;
      if (ch === Char.Tab || ch === Char.Cr) unsupported();
      if (ch === Char.Colon) {
        const after = code(i + 1);
        if (
          blankAt(i + 1) ||
          after === Char.Comma ||
          after === Char.RightBracket ||
          after === Char.RightBrace ||
          after === Char.LeftBracket
        )
          break;
        if (after === Char.LeftBrace) break;
      }
      if (ch === Char.Hash && code(i - 1) === Char.Space) break;
      if (ch !== Char.Space) end = i + 1;
    }
    return end;
  };

  /** A node inside a flow collection; it ends where its range ends. */
  const readFlowNode = (at: number, parentIndent: number): BNode => {
    let tag: [number, number] | undefined;
    if (code(at) === Char.Bang) {
      tag = readTag(at);
      at = skipFlowSpace(tag[1], parentIndent);
      if (code(at) === Char.Bang) unsupported();
    }
    const first = code(at);
    if (first === Char.LeftBracket || first === Char.LeftBrace) return readFlowCollection(at, parentIndent, tag);
    if (first === Char.SingleQuote || first === Char.DoubleQuote) {
      const value = readQuoted(at);
      return scalar(value, at, quotedEnd, tag);
    }
    if (
      unsupportedStarts.has(first) ||
      first === Char.Hash ||
      first === Char.Pipe ||
      first === Char.Greater ||
      at >= len
    )
      unsupported();
    if (
      (first === Char.Dash || first === 63 || first === Char.Colon) &&
      (blankAt(at + 1) || code(at + 1) === Char.Comma)
    ) {
      unsupported();
    }
    const end = flowPlainEnd(at);
    if (end === at) unsupported();
    const source = text.slice(at, end);
    return scalar(tag ? source : resolvePlain(source), at, end, tag);
  };

  const readFlowCollection = (at: number, parentIndent: number, tag?: [number, number]): BNode => {
    enter(at);
    const isMap = code(at) === Char.LeftBrace;
    const close = isMap ? Char.RightBrace : Char.RightBracket;
    const base = isMap ? entryTop : itemTop;
    let p = skipFlowSpace(at + 1, parentIndent);
    if (code(p) !== close) {
      for (;;) {
        if (isMap) {
          const key = readFlowNode(p, parentIndent);
          if (key.kind !== 'scalar' || key.tag) unsupported();
          p = skipFlowSpace(key.end, parentIndent);
          if (code(p) !== Char.Colon) unsupported();
          p = skipFlowSpace(p + 1, parentIndent);
          if (code(p) === Char.Comma || code(p) === close) unsupported();
          const value = readFlowNode(p, parentIndent);
          entryStack[entryTop++] = mapEntry(key, value);
          p = skipFlowSpace(value.end, parentIndent);
        } else {
          const item = readFlowNode(p, parentIndent);
          itemStack[itemTop++] = item;
          p = skipFlowSpace(item.end, parentIndent);
        }
        const ch = code(p);
        if (ch === close) break;
        if (ch !== Char.Comma) unsupported();
        p = skipFlowSpace(p + 1, parentIndent);
        if (code(p) === close) break;
        if (code(p) === Char.Comma) unsupported();
      }
    }
    const start = tag ? tag[0] : at;
    const extras = tag ? tagFields(tag) : undefined;
    open--;
    if (!isMap) {
      const items = itemStack.slice(base, itemTop);
      itemTop = base;
      return seqNode(items, true, start, p + 1, extras);
    }
    const entries = entryStack.slice(base, entryTop);
    entryTop = base;
    reportDuplicateKeys(entries, problems);
    return mapNode(entries, true, start, p + 1, extras);
  };

  // ---- block structure ----

  /**
   * The value after `key:` or after a tag, on the same line as `at` (not a block collection).
   * `parentIndent`: column of the collection that owns the value. Sets `next`.
   */
  const readInline = (at: number, parentIndent: number, depth: number, tag?: [number, number]): BNode => {
    const first = code(at);
    if (first === Char.LeftBracket || first === Char.LeftBrace) {
      const node = readFlowCollection(at, parentIndent, tag);
      finishLine(node.end);
      return node;
    }
    if (first === Char.SingleQuote || first === Char.DoubleQuote) {
      const value = readQuoted(at);
      const end = quotedEnd;
      const after = skipSpaces(end);
      if (code(after) === Char.Colon) unsupported();
      finishLine(end);
      return scalar(value, at, end, tag);
    }
    if (first === Char.Pipe || first === Char.Greater) return readBlockScalar(at, parentIndent, tag);
    if (first === Char.Bang) {
      if (tag) unsupported();
      return readTagged(at, parentIndent, depth, false);
    }
    if (unsupportedStarts.has(first)) unsupported();
    if ((first === Char.Dash || first === 63 || first === Char.Colon) && blankAt(at + 1)) unsupported();
    const end = plainEnd(at);
    if (plainColon >= 0) unsupported();
    finishLine(end);
    const source = text.slice(at, end);
    return scalar(tag ? source : resolvePlain(source), at, end, tag);
  };

  /** A tag and what it applies to: the rest of the line, or a block node on the lines below. */
  const readTagged = (at: number, parentIndent: number, depth: number, blockAllowed: boolean): BNode => {
    const tag = readTag(at);
    const after = skipSpaces(tag[1]);
    const ch = code(after);
    if (after < len && ch !== Char.Nl && !(ch === Char.Hash && after > tag[1])) {
      if (blockAllowed && readKey(after)) unsupported();
      return readInline(after, parentIndent, depth, tag);
    }
    const below = nextContentLine(Math.min(lineEnd(after) + 1, len));
    if (below < len && indentOf(below) > parentIndent) {
      const column = indentOf(below);
      const node = readBlockNode(below + column, column, parentIndent, depth, true, tag);
      return node;
    }
    if (below < len && indentOf(below) === parentIndent && code(below + parentIndent) === Char.Dash) unsupported();
    next = below;
    return scalar('', after, after, tag);
  };

  /**
   * The node at `at` (column `column`) where a block collection may start: at the start of a line's
   * content or after `- `. `parentIndent`: column of the owning collection (-1 at the root). Sets `next`.
   */
  const readBlockNode = (
    at: number,
    column: number,
    parentIndent: number,
    depth: number,
    blockAllowed: boolean,
    tag?: [number, number],
  ): BNode => {
    const first = code(at);
    if (first === Char.Dash && blankAt(at + 1)) {
      if (!blockAllowed) unsupported();
      return readBlockSeq(at, column, depth, tag);
    }
    if (first === Char.Bang) {
      if (tag) unsupported();
      return readTagged(at, parentIndent, depth, blockAllowed);
    }
    if (blockAllowed) {
      const key = readKey(at);
      if (key) return readBlockMap(at, column, depth, key, keyAfter, tag);
    }
    return readInline(at, parentIndent, depth, tag);
  };

  const readBlockMap = (
    at: number,
    column: number,
    depth: number,
    firstKey: BScalar,
    firstAfter: number,
    tag?: [number, number],
  ): BNode => {
    enter(at);
    const base = entryTop;
    let key = firstKey;
    let after = firstAfter;
    for (;;) {
      const valueAt = skipSpaces(after);
      const ch = code(valueAt);
      let value: BNode;
      if (valueAt >= len || ch === Char.Nl || ch === Char.Hash) {
        const below = nextContentLine(Math.min(lineEnd(valueAt) + 1, len));
        const belowIndent = below < len ? indentOf(below) : -1;
        if (below < len && belowIndent > column) {
          value = readBlockNode(below + belowIndent, belowIndent, column, depth + 1, true);
        } else if (
          below < len &&
          belowIndent === column &&
          code(below + column) === Char.Dash &&
          blankAt(below + column + 1)
        ) {
          value = readBlockSeq(below + column, column, depth + 1);
        } else {
          value = scalar(null, valueAt, valueAt);
          next = below;
        }
      } else value = readInline(valueAt, column, depth + 1);
      entryStack[entryTop++] = mapEntry(key, value);
      if (next >= len) break;
      const indent = indentOf(next);
      if (indent < column) break;
      if (indent > column || (code(next + indent) === Char.Dash && blankAt(next + indent + 1))) unsupported();
      key = readKey(next + indent) ?? unsupported();
      after = keyAfter;
    }
    const entries = entryStack.slice(base, entryTop);
    entryTop = base;
    reportDuplicateKeys(entries, problems);
    open--;
    const start = tag ? tag[0] : at;
    const last = entries[entries.length - 1]!;
    const end = Math.max(last.key.end, last.value.end);
    return mapNode(entries, false, start, end, tag ? tagFields(tag) : undefined);
  };

  /** The line after `dash`'s line that no longer belongs to the item: content indented at most `column`. */
  const itemEnd = (dash: number, column: number): number => {
    let lineStart = lineEnd(dash) + 1;
    while (lineStart < len) {
      const first = skipSpaces(lineStart);
      const ch = code(first);
      if (first < len && ch !== Char.Nl && ch !== Char.Hash && first - lineStart <= column) return lineStart;
      lineStart = lineEnd(first) + 1;
    }
    return len;
  };

  const readSeqItem = (dash: number, column: number, depth: number): BNode => {
    const valueAt = skipSpaces(dash + 1);
    const ch = code(valueAt);
    if (valueAt >= len || ch === Char.Nl || ch === Char.Hash) {
      const below = nextContentLine(Math.min(lineEnd(valueAt) + 1, len));
      if (below < len && indentOf(below) > column) {
        const indent = indentOf(below);
        return readBlockNode(below + indent, indent, column, depth, true);
      }
      next = below;
      return scalar(null, valueAt, valueAt);
    }
    return readBlockNode(valueAt, column + (valueAt - dash), column, depth, true);
  };

  const readBlockSeq = (at: number, column: number, depth: number, tag?: [number, number]): BNode => {
    enter(at);
    const base = itemTop;
    let dash = at;
    for (;;) {
      const lineStart = dash - column;
      const known = itemHook && depth <= itemDepth && skipSpaces(lineStartOf(dash)) === dash;
      const reused = known && reuseHook ? reuseHook(lineStart) : undefined;
      if (reused) {
        itemStack[itemTop++] = reused.node;
        next = reused.end;
      } else if (known && itemHook) {
        const end = itemEnd(dash, column);
        const level = open;
        const entryMark = entryTop;
        const itemMark = itemTop;
        const item = itemHook(
          lineStart,
          end,
          () => {
            const node = readSeqItem(dash, column, depth + 1);
            if (next !== end) unsupported();
            return node;
          },
          level,
        );
        // A read that threw (the hook then read the item another way) left the collections it had
        // entered counted, and their entries and items on the stacks; over many such items the
        // count added up to a false "nested too deep".
        open = level;
        entryTop = entryMark;
        itemTop = itemMark;
        itemStack[itemTop++] = item;
        next = end;
      } else itemStack[itemTop++] = readSeqItem(dash, column, depth + 1);
      if (next >= len) break;
      const indent = indentOf(next);
      if (indent < column) break;
      if (indent > column) unsupported();
      if (code(next + indent) !== Char.Dash || !blankAt(next + indent + 1)) break;
      dash = next + indent;
    }
    const items = itemStack.slice(base, itemTop);
    itemTop = base;
    open--;
    const start = tag ? tag[0] : at;
    const end = items[items.length - 1]!.end;
    return seqNode(items, false, start, end, tag ? tagFields(tag) : undefined);
  };

  const top = nextContentLine(0);
  if (top >= len) return undefined;
  const column = indentOf(top);
  const root = readBlockNode(top + column, column, -1, 0, true);
  if (next < len) unsupported();
  return root;
}
