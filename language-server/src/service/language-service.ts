import { parseBlueprint } from './parse-blueprint.ts';
import { problem, syntaxAndTagCodes, type Problem } from './problem.ts';
import { createSchemaIndex, type SchemaIndex } from './schema-index.ts';
import { checkTags } from './tags.ts';
import { validateBlueprint } from './validate-entries.ts';
import { checkReferences } from './validate-references.ts';

export interface LanguageServiceOptions {
  /** The blueprint JSON Schema (draft-07) of the release to check against. */
  schema: object;
}

export interface LanguageService {
  readonly index: SchemaIndex;
  /** Every problem of a blueprint text, sorted by start offset. Never throws. */
  doValidation(text: string, format?: 'yaml' | 'json'): Problem[];
}

export function createLanguageService({ schema }: LanguageServiceOptions): LanguageService {
  const index = createSchemaIndex(schema);
  return {
    index,
    doValidation(text, format) {
      const { root, problems } = parseBlueprint(text, format ? { format } : {});
      try {
        problems.push(...checkTags(root), ...validateBlueprint(root, index), ...checkReferences(root, { index, text }));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        problems.push(problem(syntaxAndTagCodes, 'internal-error', [0, text.length], `The checks failed: ${message}`));
      }
      return problems
        .map((item, order) => ({ item, order }))
        .sort((a, b) => a.item.range[0] - b.item.range[0] || a.order - b.order)
        .map(({ item }) => item);
    },
  };
}
