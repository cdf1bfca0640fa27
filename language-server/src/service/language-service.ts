import { internalError, runChecks } from './checks/run-checks.ts';
import type { Problem } from './problem.ts';
import type { BNode } from './reading/blueprint-node.ts';
import { parseBlueprint, type ParseCache, type ParseResult } from './reading/parse-blueprint.ts';
import { createSchemaIndex, type SchemaIndex } from './schema/schema-index.ts';

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
          const result = runChecks(text, parsed, index);
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
  return runChecks(text, parsed, index).problems;
}
