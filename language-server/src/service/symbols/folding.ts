import type { Range } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { lineIndexOf } from '../reading/text-document.ts';

/** Lines to fold, 0-based; `endLine` is the last line of the fold (it is hidden with the body). */
export interface LineFold {
  startLine: number;
  endLine: number;
}

/**
 * Folds by line for every mapping entry and sequence item that spans lines: the top-level
 * sections, named groups, entries, and the multi-line mappings, sequences and block scalars inside
 * them. Of folds starting on the same line only the largest is kept (editors take one per line).
 * Sorted by start line.
 */
export function foldingRanges(root: BNode | undefined, text: string): LineFold[] {
  const lines = lineIndexOf(text);
  const endByStart = new Map<number, number>();
  const add = ([start, end]: Range): void => {
    const startLine = lines.positionAt(start).line;
    const last = lines.positionAt(end);
    // A range ending at the very start of a line (a block scalar's final line break) does not cover it.
    const endLine = last.character === 0 && end > start ? last.line - 1 : last.line;
    if (endLine > startLine && endLine > (endByStart.get(startLine) ?? -1)) endByStart.set(startLine, endLine);
  };
  // An explicit stack: deeply nested flow collections must not exhaust the call stack.
  const pending: BNode[] = root ? [root] : [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === 'map') {
      for (const pair of node.entries) {
        add(pair.range);
        pending.push(pair.key, pair.value);
      }
    } else if (node.kind === 'seq') {
      for (const item of node.items) {
        add(item.range);
        pending.push(item);
      }
    }
  }
  return [...endByStart]
    .map(([startLine, endLine]) => ({ startLine, endLine }))
    .sort((a, b) => a.startLine - b.startLine);
}
