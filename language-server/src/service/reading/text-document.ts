/** A 0-based line/character position, as editors count them (characters are UTF-16 code units). */
export interface Position {
  line: number;
  character: number;
}

/** Offsets <-> positions for one text; the line-start table is computed once. */
export interface LineIndex {
  readonly text: string;
  readonly lineCount: number;
  positionAt(offset: number): Position;
  offsetAt(position: Position): number;
}

/** The line holding `offset`, given the ascending offsets where lines start (the first is 0). */
export function lineOfOffset(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Lines end at "\n", "\r\n" or a lone "\r"; a line's characters never include its line break. */
export function createLineIndex(text: string): LineIndex {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (ch === 10 /* \n */) {
      starts.push(i + 1);
    }
  }

  const lineEnd = (line: number): number => {
    const next = starts[line + 1];
    if (next === undefined) return text.length;
    let end = next;
    if (text.charCodeAt(end - 1) === 10) end--;
    if (text.charCodeAt(end - 1) === 13) end--;
    return end;
  };

  return {
    text,
    lineCount: starts.length,
    positionAt(offset) {
      const clamped = Math.max(0, Math.min(Math.floor(offset), text.length));
      const low = lineOfOffset(starts, clamped);
      // An offset inside a "\r\n" pair maps to the end of the line.
      const character = Math.min(clamped, lineEnd(low)) - starts[low]!;
      return { line: low, character };
    },
    offsetAt(position) {
      if (position.line < 0) return 0;
      if (position.line >= starts.length) return text.length;
      const start = starts[position.line]!;
      return Math.max(start, Math.min(start + Math.max(0, position.character), lineEnd(position.line)));
    },
  };
}

let lastLineIndex: LineIndex | undefined;

/**
 * The line index of a text, kept for the last text asked about: the features of one request (and
 * the requests between two edits) ask for the same text again and again.
 */
export function lineIndexOf(text: string): LineIndex {
  if (lastLineIndex?.text !== text) lastLineIndex = createLineIndex(text);
  return lastLineIndex;
}
