import {
  AMPERSAND,
  BACKSLASH,
  BANG,
  COLON,
  COMMA,
  CR,
  DASH,
  DQUOTE,
  GT,
  HASH,
  LBRACE,
  LBRACKET,
  NL,
  PIPE,
  RBRACE,
  RBRACKET,
  SPACE,
  SQUOTE,
  TAB,
} from './char-codes.ts';
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
import type { Problem } from './problem.ts';
import { TooDeep } from './nesting-depth.ts';
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
   * text another way instead.
   */
  item?: (start: number, end: number, read: () => BNode) => BNode;
  /** Collections nested deeper than this (the root is level 1) throw `TooDeep`: the reader recurses per level. */
  maxNesting?: number;
}

/** First characters that make the general parser's job: anchors, aliases, directives, reserved, stray indicators. */
const unsupportedStarts = new Set([AMPERSAND, 42 /* * */, 37 /* % */, 64 /* @ */, 96 /* ` */, COMMA, RBRACKET, RBRACE]);

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

/**
 * A copy of its own length: an array filled by `push` keeps room for at least 17 items, and most
 * collections of a blueprint hold 1-8 while living as long as the tree (~4 MB of 30 for 10,000 entries).
 */
const fitted = <T>(list: T[]): T[] => list.slice();

/** The engine's own copy of a string (as property names are kept): compared with the schema's names by identity. */
const internalized = (value: string): string => Object.keys({ [value]: 0 })[0] ?? value;

/** A plain scalar's value under the YAML 1.1 schema of the service's loader. */
function resolvePlain(source: string): ScalarValue {
  const first = source.charCodeAt(0);
  const numeric = (first >= 48 && first <= 57) || first === 43 || first === DASH || first === 46;
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
  /** Collections open around the one being read; a thrown error abandons the reader, so no unwinding is needed. */
  let open = 0;
  const enter = (at: number): void => {
    if (++open > maxNesting) throw new TooDeep(at);
  };
  /** Start of the next line with content, after the node just read (or `len`). */
  let next = 0;

  const code = (at: number): number => text.charCodeAt(at);
  const lineEnd = (at: number): number => {
    const found = text.indexOf('\n', at);
    return found < 0 ? len : found;
  };
  const skipSpaces = (at: number): number => {
    while (code(at) === SPACE) at++;
    return at;
  };
  /** Whether `at` ends a token: a space, a line break or the end of the text. */
  const blankAt = (at: number): boolean => at >= len || code(at) === SPACE || code(at) === NL;
  const indentOf = (lineStart: number): number => skipSpaces(lineStart) - lineStart;
  const lineStartOf = (at: number): number => text.lastIndexOf('\n', at - 1) + 1;

  /** `---`, `...` or a `%` directive at the start of a line: documents and directives are not ours. */
  const markerAt = (lineStart: number): boolean => {
    const first = code(lineStart);
    if (first === 37 /* % */) return true;
    if (first !== DASH && first !== 46) return false;
    return code(lineStart + 1) === first && code(lineStart + 2) === first && blankAt(lineStart + 3);
  };

  /** Start of the first line from `lineStart` on with content other than spaces and a comment. */
  const nextContentLine = (lineStart: number): number => {
    let at = lineStart;
    while (at < len) {
      const first = skipSpaces(at);
      if (first >= len) return len;
      const ch = code(first);
      if (ch === NL) at = first + 1;
      else if (ch === HASH) at = lineEnd(first) + 1;
      else {
        if (ch === TAB || ch === CR || (first === at && markerAt(at))) unsupported();
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
    if (ch === HASH && end > at) next = nextContentLine(lineEnd(end) + 1);
    else if (ch === NL) next = nextContentLine(end + 1);
    else unsupported();
  };

  const tagFields = (tag: [number, number]) => ({ tag: text.slice(tag[0], tag[1]), tagRange: tag });
  const scalar = (value: ScalarValue, start: number, end: number, tag?: [number, number]): BScalar =>
    tag ? scalarNode(value, tag[0], end, tagFields(tag)) : scalarNode(value, start, end);

  /** A tag at `at`: `!Name` only (no `!!` standard tags, no verbatim or handle forms). */
  const readTag = (at: number): [number, number] => {
    let end = at + 1;
    for (;;) {
      const ch = code(end);
      const word =
        (ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95 || ch === DASH;
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
      if (ch === NL) break;
      if (ch === TAB || ch === CR) unsupported();
      if (ch === COLON && blankAt(i + 1)) {
        plainColon = i;
        break;
      }
      if (ch === HASH && code(i - 1) === SPACE) break;
      if (ch !== SPACE) end = i + 1;
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
      if (ch === NL || ch === CR) unsupported();
      if (quote === SQUOTE) {
        if (ch !== SQUOTE) continue;
        value += text.slice(chunk, i);
        if (code(i + 1) !== SQUOTE) {
          quotedEnd = i + 1;
          return value;
        }
        value += "'";
        i++;
        chunk = i + 1;
      } else if (ch === DQUOTE) {
        quotedEnd = i + 1;
        return value + text.slice(chunk, i);
      } else if (ch === BACKSLASH) {
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

  /**
   * The same keys come back in every entry: each distinct plain key is resolved once and its string
   * shared by all its nodes (one string kept, not one per key, and no YAML 1.1 patterns tried again).
   */
  const keyValues = new Map<string, ScalarValue>();
  const plainKey = (source: string): ScalarValue => {
    const known = keyValues.get(source);
    if (known !== undefined) return known;
    const value = resolvePlain(source);
    if (typeof value !== 'string') return value;
    const shared = internalized(value);
    keyValues.set(source, shared);
    return shared;
  };

  /** A key at `at` (plain or quoted) followed by `:` (sets `keyAfter`); undefined when the text there is not a key. */
  const readKey = (at: number): BScalar | undefined => {
    const first = code(at);
    if (first === SQUOTE || first === DQUOTE) {
      const value = readQuoted(at);
      const end = quotedEnd;
      const colon = skipSpaces(end);
      if (code(colon) !== COLON || !blankAt(colon + 1)) return undefined;
      keyAfter = colon + 1;
      return scalar(value, at, end);
    }
    if (first === LBRACKET || first === LBRACE || first === BANG || first === 63 /* ? */) return undefined;
    if (unsupportedStarts.has(first) || first === PIPE || first === GT) unsupported();
    const end = plainEnd(at);
    if (plainColon < 0) return undefined;
    if (end === at || end - at > 1024) unsupported();
    const source = text.slice(at, end);
    if (source === '<<') unsupported();
    keyAfter = plainColon + 1;
    return scalar(plainKey(source), at, end);
  };

  // ---- block scalars ----

  /** `|` or `>` at `at`; `parentIndent` is the column of the collection that owns it. Sets `next`. */
  const readBlockScalar = (at: number, parentIndent: number, tag?: [number, number]): BScalar => {
    const folded = code(at) === GT;
    let chomp = 'clip';
    let headerEnd = at + 1;
    const indicator = code(headerEnd);
    if (indicator === DASH || indicator === 43 /* + */) {
      chomp = indicator === DASH ? 'strip' : 'keep';
      headerEnd++;
    }
    if (code(headerEnd) >= 48 && code(headerEnd) <= 57) unsupported();
    const afterHeader = skipSpaces(headerEnd);
    const hasComment = code(afterHeader) === HASH && afterHeader > headerEnd;
    if (!hasComment && afterHeader < len && code(afterHeader) !== NL) unsupported();

    const lines: string[] = [];
    let lineStart = lineEnd(afterHeader) + 1;
    let indent = -1;
    let widestBlank = 0;
    let lastContentEnd = headerEnd;
    while (lineStart < len) {
      const first = skipSpaces(lineStart);
      const ch = code(first);
      const blank = first >= len || ch === NL;
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
      for (let i = lineStart; i < end; i++) if (code(i) === CR) unsupported();
      if (code(lineStart + indent) === TAB) unsupported();
      if (folded && (code(lineStart + indent) === SPACE || code(lineStart + indent) === TAB)) unsupported();
      lines.push(text.slice(lineStart + indent, end));
      let trimmed = end;
      while (trimmed > first && (code(trimmed - 1) === SPACE || code(trimmed - 1) === TAB)) trimmed--;
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
      if (current === SPACE) at++;
      else if (current === NL) {
        at++;
        const first = skipSpaces(at);
        const ch = code(first);
        const closer = ch === RBRACKET || ch === RBRACE;
        const indent = first - at;
        if (ch !== NL && ch !== HASH && (indent < parentIndent || (indent === parentIndent && !closer))) unsupported();
        if (first === at && markerAt(at)) unsupported();
      } else if (current === HASH && (code(at - 1) === SPACE || code(at - 1) === NL)) at = lineEnd(at);
      else if (current === TAB || current === CR) return unsupported();
      else return at;
    }
  };

  /** A plain scalar inside a flow collection, ending at an indicator or at the end of the line. */
  const flowPlainEnd = (at: number): number => {
    let end = at;
    for (let i = at; i < len; i++) {
      const ch = code(i);
      if (ch === NL || ch === COMMA || ch === LBRACKET || ch === RBRACKET || ch === LBRACE || ch === RBRACE) break;
      if (ch === TAB || ch === CR) unsupported();
      if (ch === COLON) {
        const after = code(i + 1);
        if (blankAt(i + 1) || after === COMMA || after === RBRACKET || after === RBRACE || after === LBRACKET) break;
        if (after === LBRACE) break;
      }
      if (ch === HASH && code(i - 1) === SPACE) break;
      if (ch !== SPACE) end = i + 1;
    }
    return end;
  };

  /** A node inside a flow collection; it ends where its range ends. */
  const readFlowNode = (at: number, parentIndent: number): BNode => {
    let tag: [number, number] | undefined;
    if (code(at) === BANG) {
      tag = readTag(at);
      at = skipFlowSpace(tag[1], parentIndent);
      if (code(at) === BANG) unsupported();
    }
    const first = code(at);
    if (first === LBRACKET || first === LBRACE) return readFlowCollection(at, parentIndent, tag);
    if (first === SQUOTE || first === DQUOTE) {
      const value = readQuoted(at);
      return scalar(value, at, quotedEnd, tag);
    }
    if (unsupportedStarts.has(first) || first === HASH || first === PIPE || first === GT || at >= len) unsupported();
    if ((first === DASH || first === 63 || first === COLON) && (blankAt(at + 1) || code(at + 1) === COMMA)) {
      unsupported();
    }
    const end = flowPlainEnd(at);
    if (end === at) unsupported();
    const source = text.slice(at, end);
    return scalar(tag ? source : resolvePlain(source), at, end, tag);
  };

  const readFlowCollection = (at: number, parentIndent: number, tag?: [number, number]): BNode => {
    enter(at);
    const isMap = code(at) === LBRACE;
    const close = isMap ? RBRACE : RBRACKET;
    const items: BNode[] = [];
    const entries: BEntry[] = [];
    let p = skipFlowSpace(at + 1, parentIndent);
    if (code(p) !== close) {
      for (;;) {
        if (isMap) {
          const key = readFlowNode(p, parentIndent);
          if (key.kind !== 'scalar' || key.tag) unsupported();
          p = skipFlowSpace(key.end, parentIndent);
          if (code(p) !== COLON) unsupported();
          p = skipFlowSpace(p + 1, parentIndent);
          if (code(p) === COMMA || code(p) === close) unsupported();
          const value = readFlowNode(p, parentIndent);
          entries.push(mapEntry(key, value));
          p = skipFlowSpace(value.end, parentIndent);
        } else {
          const item = readFlowNode(p, parentIndent);
          items.push(item);
          p = skipFlowSpace(item.end, parentIndent);
        }
        const ch = code(p);
        if (ch === close) break;
        if (ch !== COMMA) unsupported();
        p = skipFlowSpace(p + 1, parentIndent);
        if (code(p) === close) break;
        if (code(p) === COMMA) unsupported();
      }
    }
    const start = tag ? tag[0] : at;
    const extras = tag ? tagFields(tag) : undefined;
    open--;
    if (!isMap) return seqNode(fitted(items), true, start, p + 1, extras);
    reportDuplicateKeys(entries, problems);
    return mapNode(fitted(entries), true, start, p + 1, extras);
  };

  // ---- block structure ----

  /**
   * The value after `key:` or after a tag, on the same line as `at` (not a block collection).
   * `parentIndent`: column of the collection that owns the value. Sets `next`.
   */
  const readInline = (at: number, parentIndent: number, depth: number, tag?: [number, number]): BNode => {
    const first = code(at);
    if (first === LBRACKET || first === LBRACE) {
      const node = readFlowCollection(at, parentIndent, tag);
      finishLine(node.end);
      return node;
    }
    if (first === SQUOTE || first === DQUOTE) {
      const value = readQuoted(at);
      const end = quotedEnd;
      const after = skipSpaces(end);
      if (code(after) === COLON) unsupported();
      finishLine(end);
      return scalar(value, at, end, tag);
    }
    if (first === PIPE || first === GT) return readBlockScalar(at, parentIndent, tag);
    if (first === BANG) {
      if (tag) unsupported();
      return readTagged(at, parentIndent, depth, false);
    }
    if (unsupportedStarts.has(first)) unsupported();
    if ((first === DASH || first === 63 || first === COLON) && blankAt(at + 1)) unsupported();
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
    if (after < len && ch !== NL && !(ch === HASH && after > tag[1])) {
      if (blockAllowed && readKey(after)) unsupported();
      return readInline(after, parentIndent, depth, tag);
    }
    const below = nextContentLine(Math.min(lineEnd(after) + 1, len));
    if (below < len && indentOf(below) > parentIndent) {
      const column = indentOf(below);
      const node = readBlockNode(below + column, column, parentIndent, depth, true, tag);
      return node;
    }
    if (below < len && indentOf(below) === parentIndent && code(below + parentIndent) === DASH) unsupported();
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
    if (first === DASH && blankAt(at + 1)) {
      if (!blockAllowed) unsupported();
      return readBlockSeq(at, column, depth, tag);
    }
    if (first === BANG) {
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
    const entries: BEntry[] = [];
    let key = firstKey;
    let after = firstAfter;
    for (;;) {
      const valueAt = skipSpaces(after);
      const ch = code(valueAt);
      let value: BNode;
      if (valueAt >= len || ch === NL || ch === HASH) {
        const below = nextContentLine(Math.min(lineEnd(valueAt) + 1, len));
        const belowIndent = below < len ? indentOf(below) : -1;
        if (below < len && belowIndent > column) {
          value = readBlockNode(below + belowIndent, belowIndent, column, depth + 1, true);
        } else if (
          below < len &&
          belowIndent === column &&
          code(below + column) === DASH &&
          blankAt(below + column + 1)
        ) {
          value = readBlockSeq(below + column, column, depth + 1);
        } else {
          value = scalar(null, valueAt, valueAt);
          next = below;
        }
      } else value = readInline(valueAt, column, depth + 1);
      entries.push(mapEntry(key, value));
      if (next >= len) break;
      const indent = indentOf(next);
      if (indent < column) break;
      if (indent > column || (code(next + indent) === DASH && blankAt(next + indent + 1))) unsupported();
      key = readKey(next + indent) ?? unsupported();
      after = keyAfter;
    }
    reportDuplicateKeys(entries, problems);
    open--;
    const start = tag ? tag[0] : at;
    const last = entries[entries.length - 1]!;
    const end = Math.max(last.key.end, last.value.end);
    return mapNode(fitted(entries), false, start, end, tag ? tagFields(tag) : undefined);
  };

  /** The line after `dash`'s line that no longer belongs to the item: content indented at most `column`. */
  const itemEnd = (dash: number, column: number): number => {
    let lineStart = lineEnd(dash) + 1;
    while (lineStart < len) {
      const first = skipSpaces(lineStart);
      const ch = code(first);
      if (first < len && ch !== NL && ch !== HASH && first - lineStart <= column) return lineStart;
      lineStart = lineEnd(first) + 1;
    }
    return len;
  };

  const readSeqItem = (dash: number, column: number, depth: number): BNode => {
    const valueAt = skipSpaces(dash + 1);
    const ch = code(valueAt);
    if (valueAt >= len || ch === NL || ch === HASH) {
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
    const items: BNode[] = [];
    let dash = at;
    for (;;) {
      const lineStart = dash - column;
      const known = itemHook && depth <= itemDepth && skipSpaces(lineStartOf(dash)) === dash;
      const reused = known && reuseHook ? reuseHook(lineStart) : undefined;
      if (reused) {
        items.push(reused.node);
        next = reused.end;
      } else if (known && itemHook) {
        const end = itemEnd(dash, column);
        items.push(
          itemHook(lineStart, end, () => {
            const node = readSeqItem(dash, column, depth + 1);
            if (next !== end) unsupported();
            return node;
          }),
        );
        next = end;
      } else items.push(readSeqItem(dash, column, depth + 1));
      if (next >= len) break;
      const indent = indentOf(next);
      if (indent < column) break;
      if (indent > column) unsupported();
      if (code(next + indent) !== DASH || !blankAt(next + indent + 1)) break;
      dash = next + indent;
    }
    open--;
    const start = tag ? tag[0] : at;
    const end = items[items.length - 1]!.end;
    return seqNode(fitted(items), false, start, end, tag ? tagFields(tag) : undefined);
  };

  const top = nextContentLine(0);
  if (top >= len) return undefined;
  const column = indentOf(top);
  const root = readBlockNode(top + column, column, -1, 0, true);
  if (next < len) unsupported();
  return root;
}
