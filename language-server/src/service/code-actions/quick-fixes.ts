import type { Problem, Range, TextEdit } from '../problem.ts';

export interface QuickFix {
  title: string;
  edits: TextEdit[];
  /** The problem it corrects. */
  problem: Problem;
  /** The only fix of its problem: an editor may apply it directly. */
  preferred: boolean;
}

const overlaps = (a: Range, b: Range): boolean => a[0] <= b[1] && b[0] <= a[1];

/**
 * The quick fixes for the problems that touch `range`: the fixes the checks attached (every "did
 * you mean", quoting a label value, lowercasing a model name) and those that need the text
 * (adding the missing `identifiers` block below the entry's `model` line).
 */
export function quickFixes(text: string, problems: readonly Problem[], range: Range): QuickFix[] {
  const fixes: QuickFix[] = [];
  for (const problem of problems) {
    if (!overlaps(problem.range, range)) continue;
    const own = [...(problem.fixes ?? []), ...textFixes(text, problem)];
    for (const fix of own) fixes.push({ ...fix, problem, preferred: own.length === 1 });
  }
  return fixes;
}

function textFixes(text: string, problem: Problem): { title: string; edits: TextEdit[] }[] {
  if (problem.code !== 'identifiers-missing') return [];
  // The problem covers `model: <name>`; only a block-style entry can take a new line below it.
  const [keyStart, valueEnd] = problem.range;
  const lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
  if (!/^\s*(-\s+)?$/.test(text.slice(lineStart, keyStart))) return [];
  const lineEnd = text.indexOf('\n', valueEnd);
  const at = lineEnd < 0 ? text.length : lineEnd;
  const indent = ' '.repeat(keyStart - lineStart);
  return [
    { title: 'Add an empty identifiers block', edits: [{ range: [at, at], newText: `\n${indent}identifiers: {}` }] },
  ];
}
