import { problem, syntaxAndTagCodes, type Problem } from '../problem.ts';
import type { BEntry, BNode } from './blueprint-node.ts';

/** Beyond this many keys a set beats comparing each key with the ones before it. */
const SMALL_MAP = 32;

/** Like the service's loader, a repeated key is accepted (the last wins), so it is only a warning. */
export function reportDuplicateKeys(entries: readonly BEntry[], problems: Problem[]): void {
  const seen = entries.length > SMALL_MAP ? new Set<string>() : undefined;
  for (let i = 0; i < entries.length; i++) {
    const key = entries[i]!.key;
    if (key.kind !== 'scalar' || key.tag) continue;
    if (seen ? firstSighting(seen, key.value) : !earlierHas(entries, i, key)) continue;
    const message = `The key '${String(key.value)}' appears earlier in this mapping; the last value wins.`;
    problems.push(problem(syntaxAndTagCodes, 'yaml-duplicate-key', key.range, message));
  }
}

function firstSighting(seen: Set<string>, value: unknown): boolean {
  const id = `${typeof value}:${String(value)}`;
  if (seen.has(id)) return false;
  seen.add(id);
  return true;
}

function earlierHas(entries: readonly BEntry[], index: number, key: BNode & { kind: 'scalar' }): boolean {
  for (let i = 0; i < index; i++) {
    const earlier = entries[i]!.key;
    if (
      earlier.kind === 'scalar' &&
      !earlier.tag &&
      (earlier.value === key.value || Object.is(earlier.value, key.value))
    ) {
      return true;
    }
  }
  return false;
}
