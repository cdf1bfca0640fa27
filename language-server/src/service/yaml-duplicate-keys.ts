import type { BEntry } from './blueprint-node.ts';
import { problem, syntaxAndTagCodes, type Problem } from './problem.ts';

/** Like the service's loader, a repeated key is accepted (the last wins), so it is only a warning. */
export function reportDuplicateKeys(entries: readonly BEntry[], problems: Problem[]): void {
  if (entries.length < 2) return;
  const seen = new Set<string>();
  for (const { key } of entries) {
    if (key.kind !== 'scalar' || key.tag) continue;
    const id = `${typeof key.value}:${String(key.value)}`;
    if (!seen.has(id)) seen.add(id);
    else {
      const message = `The key '${String(key.value)}' appears earlier in this mapping; the last value wins.`;
      problems.push(problem(syntaxAndTagCodes, 'yaml-duplicate-key', key.range, message));
    }
  }
}
