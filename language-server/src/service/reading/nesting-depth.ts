import { Char } from './yaml-fast-reader.ts';

/**
 * Nesting deeper than this is refused before parsing. The `yaml` package composes nodes
 * recursively and overflows the call stack at about 1,000 levels (and its lexer runs out of
 * memory on very long `- - - …` lines); no real blueprint comes near 500 levels.
 */
export const MAX_NESTING = 500;

/**
 * The offset of the first collection nested deeper than `limit` levels (the root is level 1), or
 * `undefined`. A linear scan without recursion that follows block indentation, compact `- - x`
 * sequences and flow brackets (outside quotes, comments and block scalars); it errs on the side
 * of counting too few levels, never throws, and needs no well-formed input.
 */
export function firstTooDeep(text: string, limit = MAX_NESTING): number | undefined {
  const len = text.length;
  const code = (at: number): number => text.charCodeAt(at);
  const blankAt = (at: number): boolean =>
    at >= len || code(at) === Char.Space || code(at) === Char.Nl || code(at) === Char.Cr;
  const skipSpaces = (at: number): number => {
    while (code(at) === Char.Space || code(at) === Char.Tab) at++;
    return at;
  };
  const lineEnd = (at: number): number => {
    const found = text.indexOf('\n', at);
    return found < 0 ? len : found;
  };
  /** The open block collections: their column, and whether a sequence (it may share its parent mapping's column). */
  const blocks: { column: number; seq: boolean }[] = [];
  let flow = 0;
  let nodeStart = true;
  let lineStart = 0;
  const open = (column: number, seq: boolean): boolean => {
    const top = blocks[blocks.length - 1];
    if (top && (top.column > column || (top.column === column && (top.seq || !seq)))) return false;
    blocks.push({ column, seq });
    return blocks.length + flow > limit;
  };

  while (lineStart < len) {
    let p = skipSpaces(lineStart);
    if (p >= len) break;
    const first = code(p);
    if (first === Char.Nl || first === Char.Cr || first === Char.Hash) {
      lineStart = lineEnd(p) + 1;
      continue;
    }
    if (flow === 0) {
      nodeStart = true;
      const column = p - lineStart;
      const dash = first === Char.Dash && blankAt(p + 1);
      while (blocks.length > 0 && blocks[blocks.length - 1]!.column > column) blocks.pop();
      // A key after a sequence written at its mapping's column ends the sequence.
      const top = blocks[blocks.length - 1];
      if (!dash && top?.seq && top.column === column && blocks[blocks.length - 2]?.column === column) blocks.pop();
      // A flow collection at the start of a line is counted by its bracket alone.
      if (first !== Char.LeftBracket && first !== Char.LeftBrace && open(column, dash)) return p;
      // `- - x`: each further dash on the line opens a sequence inside the item.
      while (code(p) === Char.Dash && blankAt(p + 1)) {
        const after = skipSpaces(p + 1);
        if (!(code(after) === Char.Dash && blankAt(after + 1))) {
          p = after;
          break;
        }
        if (open(after - lineStart, true)) return after;
        p = after;
      }
    }
    let ended = false;
    while (!ended && p < len && code(p) !== Char.Nl) {
      const ch = code(p);
      if (ch === Char.Space || ch === Char.Tab || ch === Char.Cr) {
        p++;
        continue;
      }
      if (ch === Char.Hash && (nodeStart || code(p - 1) === Char.Space || code(p - 1) === Char.Tab)) {
        p = lineEnd(p);
        break;
      }
      if (nodeStart && (ch === Char.SingleQuote || ch === Char.DoubleQuote)) {
        p = quotedEnd(text, p);
        nodeStart = false;
        continue;
      }
      if (nodeStart && (ch === Char.Bang || ch === Char.Ampersand)) {
        while (p < len && !blankAt(p) && (flow === 0 || !isFlowIndicator(code(p)))) p++;
        continue;
      }
      if (nodeStart && flow === 0 && (ch === Char.Pipe || ch === Char.Greater)) {
        p = blockScalarEnd(text, lineEnd(p), blocks[blocks.length - 1]?.column ?? -1);
        ended = true;
        continue;
      }
      if (ch === Char.LeftBracket || ch === Char.LeftBrace) {
        if (nodeStart || flow > 0) {
          flow++;
          if (blocks.length + flow > limit) return p;
          nodeStart = true;
        } else nodeStart = false;
        p++;
        continue;
      }
      if (flow > 0 && (ch === Char.RightBracket || ch === Char.RightBrace)) {
        flow--;
        nodeStart = false;
      } else if (flow > 0 && ch === Char.Comma) nodeStart = true;
      else if (ch === Char.Colon && (flow > 0 || blankAt(p + 1))) nodeStart = true;
      else if (ch === Char.Dash && nodeStart && blankAt(p + 1)) nodeStart = true;
      else nodeStart = false;
      p++;
    }
    lineStart = ended ? p : lineEnd(p) + 1;
  }
  return undefined;
}

const isFlowIndicator = (ch: number): boolean =>
  ch === Char.Comma ||
  ch === Char.LeftBracket ||
  ch === Char.RightBracket ||
  ch === Char.LeftBrace ||
  ch === Char.RightBrace;

/** The offset after the quoted scalar starting at `at` (which may span lines), or the end of the text. */
function quotedEnd(text: string, at: number): number {
  const quote = text.charCodeAt(at);
  let p = at + 1;
  while (p < text.length) {
    const ch = text.charCodeAt(p);
    if (quote === Char.DoubleQuote && ch === Char.Backslash) p += 2;
    else if (ch === quote && quote === Char.SingleQuote && text.charCodeAt(p + 1) === Char.SingleQuote) p += 2;
    else if (ch === quote) return p + 1;
    else p++;
  }
  return text.length;
}

/** The start of the first line after `lineEnd` that is not blank and not indented more than `parent`. */
function blockScalarEnd(text: string, lineEnd: number, parent: number): number {
  let lineStart = lineEnd + 1;
  while (lineStart < text.length) {
    let p = lineStart;
    while (text.charCodeAt(p) === Char.Space) p++;
    const ch = text.charCodeAt(p);
    if (p < text.length && ch !== Char.Nl && ch !== Char.Cr && p - lineStart <= parent) return lineStart;
    const next = text.indexOf('\n', p);
    if (next < 0) return text.length;
    lineStart = next + 1;
  }
  return text.length;
}
