import { problem, syntaxAndTagCodes, type Problem } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { NO_NODES } from '../reading/node-queries.ts';
import type { ParseResult } from '../reading/parse-blueprint.ts';
import type { SchemaIndex } from '../schema/schema-index.ts';
import type { Check, CheckContext } from './check.ts';
import { checks } from './registry.ts';
import { forEachEntry } from './top-level-check.ts';

const topLevelChecks: readonly Check[] = checks.filter((check) => check.checkTopLevel);
const entryChecks: readonly Check[] = checks.filter((check) => check.checkEntry);
const blueprintChecks: readonly Check[] = checks.filter((check) => check.checkBlueprint);

/** The finding that stands for a defect of ours: the checks (or the reader) threw. */
export function internalError(text: string, error: unknown): Problem {
  const message = error instanceof Error ? error.message : String(error);
  return problem(syntaxAndTagCodes, 'internal-error', [0, text.length], `The checks failed: ${message}`);
}

/**
 * The problems of a parsed text, sorted by start offset: the reader's, then those of every
 * registered check, on the top level, on each entry, then on the whole blueprint. `trusted` is
 * false when a check failed (a defect of ours).
 */
export function runChecks(
  text: string,
  parsed: ParseResult,
  index: SchemaIndex,
): { problems: Problem[]; trusted: boolean } {
  const problems: Problem[] = [];
  let trusted = true;
  // Appended one by one: spreading 100,000s of arguments into push() overflows the stack.
  for (const item of parsed.problems) problems.push(item);
  try {
    const nothingChecked: CheckContext = { index, text, checked: NO_NODES };
    for (const check of topLevelChecks) check.checkTopLevel!(parsed.root, nothingChecked, problems);
    // Entry checks are kept with the entry's parse: an unchanged entry is not checked again.
    const checked = new Set<BNode>();
    forEachEntry(parsed.root, (entry) => {
      checked.add(entry);
      const item = parsed.cache.itemOf(entry);
      let found = item?.checks;
      if (!found) {
        // One array per entry, shared by its checks.
        const fresh: Problem[] = [];
        for (let i = 0; i < entryChecks.length; i++) entryChecks[i]!.checkEntry!(entry, nothingChecked, fresh);
        if (item) item.checks = fresh;
        found = fresh;
      }
      for (let i = 0; i < found.length; i++) problems.push(found[i]!);
    });
    const entriesChecked: CheckContext = { index, text, checked };
    for (const check of blueprintChecks) check.checkBlueprint!(parsed.root, entriesChecked, problems);
  } catch (error) {
    // A defect of ours must not cost the editor its other diagnostics.
    trusted = false;
    problems.push(internalError(text, error));
  }
  const sorted = problems
    .map((item, order) => ({ item, order }))
    .sort((a, b) => a.item.range[0] - b.item.range[0] || a.order - b.order)
    .map(({ item }) => item);
  return { problems: sorted, trusted };
}
