/**
 * The block structure around the completion cursor, read line by line from the text: each line's
 * `- ` items and `key:`s, the lines above that hold the cursor's parents, the siblings below.
 */
export interface LineNode {
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

export const isSpace = (char: string | undefined): boolean =>
  char === ' ' || char === '\t' || char === '\r' || char === '\n';
export const flowIndicators = ',[]{}';
/** Characters that cannot start a plain key (YAML indicators). */
const notKeyStart = '[]{}!&*|>#%@`,?-';

export function lineEnd(text: string, start: number): number {
  const found = text.indexOf('\n', start);
  return found < 0 ? text.length : found;
}

function previousLine(text: string, start: number): number | undefined {
  // lastIndexOf clamps a negative position to 0, which would find the `\n` at 0 again.
  return start <= 0 ? undefined : start === 1 ? 0 : text.lastIndexOf('\n', start - 2) + 1;
}

/** Index of the quote closing the one at `open`, before `end`; -1 when there is none. */
export function closingQuote(text: string, open: number, end: number): number {
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
export function shapeOf(text: string, start: number, end: number): LineShape {
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
export const opensBlock = (inline: string): boolean => /^((![^\s]*|&[^\s]+)\s*)*$/.test(inline);

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

export function enclosingNodes(
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
export function siblingsBelow(text: string, lineStart: number, column: number, siblings: Set<string>): void {
  for (let start = lineEnd(text, lineStart) + 1; start <= text.length; start = lineEnd(text, start) + 1) {
    const shape = shapeOf(text, start, lineEnd(text, start));
    if (shape.blank || shape.firstColumn > column) continue;
    const first = shape.nodes[0];
    if (shape.firstColumn < column || first?.kind !== 'key') return;
    siblings.add(first.name!);
  }
}

/** The indentation step of the document: the first increase under a `key:` that opens a mapping. */
export function indentUnitOf(text: string): number {
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
