import type { BScalar } from './blueprint-node.ts';

/** How a scalar is written: its YAML style. */
export type ScalarStyle = 'plain' | 'single-quoted' | 'double-quoted' | 'literal' | 'folded';

/** A string scalar's value with, for each of its characters, where that character comes from in the text. */
export interface ScalarSource {
  style: ScalarStyle;
  value: string;
  /**
   * `offsets[i]`: the text offset of the source of `value[i]` (an escape's backslash, the line
   * break a fold turned into a space); `offsets[value.length]`: where the written value ends.
   */
  offsets: number[];
  /** Indices in `value` of the spaces that stand for a line break of the text (folded lines). */
  folds: number[];
  /** The `|` or `>` of a block scalar. */
  indicator?: number;
}

/**
 * Reads a string scalar again from its text, keeping where each character of its value comes from:
 * a value's line and column are not the text's once YAML has removed a block's indentation,
 * resolved escapes or folded lines. Undefined when the value cannot be matched to the text (a
 * form this reader does not follow): the caller then points at the whole node. Linear in the
 * scalar's length.
 */
export function scalarSource(text: string, node: BScalar): ScalarSource | undefined {
  if (typeof node.value !== 'string') return undefined;
  let at = node.tagRange ? node.tagRange[1] : node.start;
  while (at < node.end && (text[at] === ' ' || text[at] === '\t')) at++;
  const first = text[at];
  let read: ScalarSource | undefined;
  if (first === '|' || first === '>') read = readBlock(text, at, node.end);
  else if (first === '"') read = readQuoted(text, at, node.end, 'double-quoted');
  else if (first === "'") read = readQuoted(text, at, node.end, 'single-quoted');
  else read = readPlain(text, at, node.end);
  return read && read.value === node.value ? read : undefined;
}

/** Builds a value character by character, with where each comes from. */
class Builder {
  value = '';
  offsets: number[] = [];
  folds: number[] = [];

  /** Characters that one piece of the text stands for (an escape, a line break). */
  add(chars: string, offset: number): void {
    this.value += chars;
    for (let i = 0; i < chars.length; i++) this.offsets.push(offset);
  }

  /** `text[from, to)` as it is. */
  copy(text: string, from: number, to: number): void {
    this.value += text.slice(from, to);
    for (let i = from; i < to; i++) this.offsets.push(i);
  }

  /** A line break folded into a space. */
  fold(offset: number): void {
    this.folds.push(this.value.length);
    this.add(' ', offset);
  }

  done(style: ScalarStyle, end: number, indicator?: number): ScalarSource {
    this.offsets.push(end);
    return { style, value: this.value, offsets: this.offsets, folds: this.folds, ...(indicator ? { indicator } : {}) };
  }
}

const isBlank = (char: string | undefined): boolean => char === ' ' || char === '\t';

/** `[start, end)` of each line of `text[from, to)`, without its `\n`. */
function linesOf(text: string, from: number, to: number): [number, number][] {
  const lines: [number, number][] = [];
  let start = from;
  for (;;) {
    const newline = text.indexOf('\n', start);
    if (newline < 0 || newline >= to) {
      lines.push([start, to]);
      return lines;
    }
    lines.push([start, newline]);
    start = newline + 1;
  }
}

/** Plain scalars: lines trimmed and folded. */
function readPlain(text: string, start: number, end: number): ScalarSource {
  const builder = new Builder();
  const lines = linesOf(text, start, end);
  appendFolded(text, builder, lines, (from, to) => builder.copy(text, from, to), true);
  return builder.done('plain', end);
}

/**
 * Adds the lines of a flow scalar (plain or quoted) with YAML's folding: the first line keeps its
 * leading spaces, the others lose them; every line but the last loses its trailing spaces; one
 * break between two lines becomes a space, each empty line between them a line break. `write`
 * adds a line's content; `escapedBreak` tells that a line ends in an escaped line break (`\` in a
 * double-quoted scalar), which joins the lines with nothing.
 */
function appendFolded(
  text: string,
  builder: Builder,
  lines: [number, number][],
  write: (from: number, to: number) => void,
  trimFirstStart: boolean,
  escapedBreak?: (line: [number, number]) => number | undefined,
): void {
  let pendingBreak: number | undefined;
  let emptyBreaks: number[] = [];
  let joinNext = false;
  lines.forEach(([lineStart, lineEnd], index) => {
    const first = index === 0;
    const last = index === lines.length - 1;
    let from = lineStart;
    if (!first || trimFirstStart) while (from < lineEnd && isBlank(text[from])) from++;
    let to = lineEnd;
    const escaped = !last && escapedBreak ? escapedBreak([from, lineEnd]) : undefined;
    if (escaped !== undefined) to = escaped;
    else if (!last) while (to > from && isBlank(text[to - 1]) && !(escapedBreak && isEscaped(text, from, to - 1))) to--;
    const empty = from === to && !first && !last && escaped === undefined;
    if (empty && !joinNext) {
      emptyBreaks.push(lineEnd);
      return;
    }
    if (!first && !joinNext) {
      if (emptyBreaks.length > 0) for (const offset of emptyBreaks) builder.add('\n', offset);
      else if (pendingBreak !== undefined) builder.fold(pendingBreak);
    }
    emptyBreaks = [];
    joinNext = escaped !== undefined;
    write(from, to);
    pendingBreak = lineEnd;
  });
}

/** Whether the character at `at` follows an odd number of backslashes (a double-quoted escape). */
function isEscaped(text: string, from: number, at: number): boolean {
  let slashes = 0;
  while (at - slashes - 1 >= from && text[at - slashes - 1] === '\\') slashes++;
  return slashes % 2 === 1;
}

/** `'...'` and `"..."`: the quotes, escapes and folding of flow scalars. */
function readQuoted(text: string, start: number, end: number, style: ScalarStyle): ScalarSource | undefined {
  const double = style === 'double-quoted';
  // The closing quote is the node's last character.
  if (end - start < 2 || text[end - 1] !== text[start]) return undefined;
  const builder = new Builder();
  const lines = linesOf(text, start + 1, end - 1);
  const write = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const char = text[i]!;
      if (!double && char === "'" && text[i + 1] === "'") {
        builder.add("'", i);
        i++;
      } else if (double && char === '\\') {
        const escape = readEscape(text, i, to);
        if (!escape) {
          builder.add(char, i);
          continue;
        }
        builder.add(escape.chars, i);
        i += escape.length - 1;
      } else builder.add(char, i);
    }
  };
  // A double-quoted line ending in a backslash that is not itself escaped escapes its break.
  const escapedBreak = double
    ? ([from, to]: [number, number]): number | undefined =>
        to > from && text[to - 1] === '\\' && !isEscaped(text, from, to - 1) ? to - 1 : undefined
    : undefined;
  appendFolded(text, builder, lines, write, false, escapedBreak);
  return builder.done(style, end);
}

const simpleEscapes: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};

/** The escape at `at` (a backslash) in a double-quoted scalar: what it stands for and its length. */
function readEscape(text: string, at: number, to: number): { chars: string; length: number } | undefined {
  const kind = text[at + 1];
  if (kind === undefined || at + 1 >= to) return undefined;
  const simple = simpleEscapes[kind];
  if (simple !== undefined) return { chars: simple, length: 2 };
  const digits = kind === 'x' ? 2 : kind === 'u' ? 4 : kind === 'U' ? 8 : 0;
  const hex = text.slice(at + 2, at + 2 + digits);
  if (digits === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) return undefined;
  return { chars: String.fromCodePoint(parseInt(hex, 16)), length: 2 + digits };
}

/**
 * `|` and `>`: the header, then the lines indented at least as much as the first that is not
 * empty, with that indentation removed. A literal block keeps its line breaks; a folded one turns
 * the break between two lines of text into a space (not around more-indented lines).
 */
function readBlock(text: string, indicator: number, nodeEnd: number): ScalarSource | undefined {
  const folded = text[indicator] === '>';
  let at = indicator + 1;
  let chomp: 'clip' | 'strip' | 'keep' = 'clip';
  let explicitIndent: number | undefined;
  for (let i = 0; i < 2; i++) {
    const char = text[at];
    if (char === '-' || char === '+') {
      chomp = char === '-' ? 'strip' : 'keep';
      at++;
    } else if (char !== undefined && char >= '1' && char <= '9') {
      explicitIndent = Number(char);
      at++;
    }
  }
  const headerEnd = text.indexOf('\n', at);
  if (headerEnd < 0) return new Builder().done(folded ? 'folded' : 'literal', nodeEnd, indicator);
  // The content lines: up to the first line that is neither empty nor indented enough.
  const all = linesOf(text, headerEnd + 1, text.length);
  let indent = -1;
  if (explicitIndent !== undefined) {
    // Relative to the collection holding the block: the header line's key, or its item after `- `.
    const headerLine = text.lastIndexOf('\n', indicator - 1) + 1;
    let parent = headerLine;
    while (isBlank(text[parent])) parent++;
    if (text[parent] === '-' && isBlank(text[parent + 1])) {
      parent++;
      while (isBlank(text[parent])) parent++;
    }
    indent = parent - headerLine + explicitIndent;
  }
  const lines: [number, number][] = [];
  for (const [start, end] of all) {
    let first = start;
    while (first < end && text[first] === ' ') first++;
    const blank = first === end || (first < end && text.slice(first, end).trim() === '');
    if (blank) {
      lines.push([start, end]);
      continue;
    }
    if (indent < 0) indent = first - start;
    if (first - start < indent) break;
    lines.push([start, end]);
  }
  // Only blank lines: no content (whatever their spaces).
  const contentless = indent < 0;
  if (contentless) indent = 0;
  let lastContent = contentless ? -1 : lines.length - 1;
  const isEmpty = ([start, end]: [number, number]): boolean =>
    end - start <= indent && text.slice(start, end).trim() === '';
  while (lastContent >= 0 && isEmpty(lines[lastContent]!)) lastContent--;
  const builder = new Builder();
  const style: ScalarStyle = folded ? 'folded' : 'literal';
  if (lastContent < 0) {
    if (chomp === 'keep') for (const line of lines) if (line[1] < text.length) builder.add('\n', line[1]);
    return builder.done(style, nodeEnd, indicator);
  }
  const moreIndented = ([start, end]: [number, number]): boolean =>
    end - start > indent && isBlank(text[start + indent]);
  let previous: [number, number] | undefined;
  let breaks: number[] = [];
  for (let i = 0; i <= lastContent; i++) {
    const line = lines[i]!;
    if (isEmpty(line)) {
      breaks.push(line[1]);
      continue;
    }
    if (previous) {
      if (folded && breaks.length === 0 && !moreIndented(previous) && !moreIndented(line)) builder.fold(previous[1]);
      else {
        // The break ending the previous line stays unless a folded block drops it before empty lines.
        if (!(folded && !moreIndented(previous) && !moreIndented(line))) builder.add('\n', previous[1]);
        for (const offset of breaks) builder.add('\n', offset);
      }
    } else for (const offset of breaks) builder.add('\n', offset);
    breaks = [];
    builder.copy(text, line[0] + indent, line[1]);
    previous = line;
  }
  const last = lines[lastContent]!;
  if (chomp !== 'strip' && last[1] < text.length) builder.add('\n', last[1]);
  if (chomp === 'keep')
    for (const line of lines.slice(lastContent + 1)) if (line[1] < text.length) builder.add('\n', line[1]);
  return builder.done(style, nodeEnd, indicator);
}
