import { problem, syntaxAndTagCodes, type Problem } from './problem.ts';
import type { BNode } from './reading/blueprint-node.ts';
import { parseBlueprint, type ParseCache, type ParseResult } from './reading/parse-blueprint.ts';
import { createSchemaIndex, type SchemaIndex } from './schema/schema-index.ts';
import { checkTags } from './tags.ts';
import { validateBlueprint } from './validate-entries.ts';
import { checkEntryAlone } from './validate-entry.ts';
import { checkFindTags } from './validate-find.ts';
import { checkReferences } from './validate-references.ts';

export interface LanguageServiceOptions {
  /** The blueprint JSON Schema (draft-07) of the release to check against. */
  schema: object;
}

export type BlueprintFormat = 'yaml' | 'json';

/** One document validated again and again as it is edited: unchanged entries are not read or checked again. */
export interface DocumentValidator {
  /** Every problem of this version of the text, sorted by start offset. Never throws. */
  validate(text: string): Problem[];
  /**
   * The tree of this version of the text (for completion, hover, navigation). Shares the entry
   * cache with `validate`: a tree returned for an earlier text must not be used after a later call.
   */
  parse(text: string): BNode | undefined;
}

export interface LanguageService {
  readonly index: SchemaIndex;
  /** Every problem of a blueprint text, sorted by start offset. Never throws. */
  doValidation(text: string, format?: BlueprintFormat): Problem[];
  /** A validator for the versions of one document (an editor buffer). */
  createDocumentValidator(format?: BlueprintFormat): DocumentValidator;
}

export function createLanguageService({ schema }: LanguageServiceOptions): LanguageService {
  const index = createSchemaIndex(schema);
  return {
    index,
    doValidation: (text, format) => validate(text, index, format),
    createDocumentValidator(format) {
      let cache: ParseCache | undefined;
      /** The newest text seen, its parse and, once validated, its problems. */
      let last: { text: string; parsed: ParseResult; problems?: Problem[] } | undefined;
      const parse = (text: string): ParseResult => {
        if (last?.text === text) return last.parsed;
        const parsed = parseBlueprint(text, { ...(format ? { format } : {}), ...(cache ? { previous: cache } : {}) });
        cache = parsed.cache;
        last = { text, parsed };
        return parsed;
      };
      return {
        validate(text) {
          const parsed = parse(text);
          if (last!.problems) return last!.problems;
          const result = check(text, parsed, index);
          // A failed check leaves a cache that must not be trusted: the next text is read afresh.
          if (!result.trusted) cache = undefined;
          last!.problems = result.problems;
          return result.problems;
        },
        parse: (text) => parse(text).root,
      };
    },
  };
}

function validate(text: string, index: SchemaIndex, format: BlueprintFormat | undefined): Problem[] {
  let parsed: ParseResult;
  try {
    parsed = parseBlueprint(text, format ? { format } : {});
  } catch (error) {
    return [internalError(text, error)];
  }
  return check(text, parsed, index).problems;
}

function internalError(text: string, error: unknown): Problem {
  const message = error instanceof Error ? error.message : String(error);
  return problem(syntaxAndTagCodes, 'internal-error', [0, text.length], `The checks failed: ${message}`);
}

/** The problems of a parsed text, sorted by start offset; `trusted` is false when a check failed (a defect of ours). */
function check(text: string, parsed: ParseResult, index: SchemaIndex): { problems: Problem[]; trusted: boolean } {
  const problems: Problem[] = [];
  let trusted = true;
  // Appended one by one: spreading 100,000s of arguments into push() overflows the stack.
  const add = (found: readonly Problem[]): void => {
    for (const item of found) problems.push(item);
  };
  add(parsed.problems);
  try {
    // Entry checks are kept with the entry's parse: an unchanged entry is not checked again.
    const checked = new Set<BNode>();
    // The shape of the root pass's options below: one shape at the walk's destructuring.
    const findOptions = { skip: undefined, text };
    const checkEntry = (entry: BNode): readonly Problem[] => {
      checked.add(entry);
      const item = parsed.cache.itemOf(entry);
      if (item?.checks) return item.checks;
      // Into the entry's own list (a new array): one array per entry, not three.
      const found = checkEntryAlone(entry, index);
      for (const each of checkFindTags(entry, index, findOptions)) found.push(each);
      if (item) item.checks = found;
      return found;
    };
    add(validateBlueprint(parsed.root, index, { checkEntry, text }));
    add(checkTags(parsed.root, checked));
    add(checkFindTags(parsed.root, index, { skip: checked, text }));
    add(checkReferences(parsed.root, { text }));
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
