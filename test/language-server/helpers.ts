import { checkTags } from '../../language-server/src/service/checks/tag-check.ts';
import type { Problem } from '../../language-server/src/service/problem.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';

/** `«` and `»` mark one range in a blueprint; returns the text without them and the marked range. */
export function marked(source: string): { text: string; range: [number, number] } {
  const start = source.indexOf('«');
  const end = source.indexOf('»') - 1;
  if (start < 0 || end < start) throw new Error(`expected one «range» in ${source}`);
  return { text: source.replace('«', '').replace('»', ''), range: [start, end] };
}

/** Parser problems and tag problems of a text, in that order. */
export function allProblems(text: string): Problem[] {
  const { root, problems } = parseBlueprint(text);
  return [...problems, ...checkTags(root)];
}

/** What a problem covers, so assertions read as text rather than offsets. */
export function covered(text: string, problem: { range: readonly [number, number] }): string {
  return text.slice(problem.range[0], problem.range[1]);
}

/** Problems as compared in the rule tests: fixes are checked by the code action tests. */
export function withoutFixes(problems: readonly Problem[]): Omit<Problem, 'fixes'>[] {
  return problems.map(({ fixes: _fixes, ...rest }) => rest);
}

/**
 * A copy of the schema with `digits` of the TOTP stage as the release's own schema has it (the
 * strings "6" and "8"; ours adds the numbers, which the service accepts as well): a string enum of
 * number-like values, for the rules and completions that only such a field shows.
 */
export function withStringDigits(schema: object): object {
  const copy = structuredClone(schema) as { definitions: Record<string, { properties: Record<string, unknown> }> };
  copy.definitions['model_idp_stages_authenticator_totp.authenticatortotpstage']!.properties.digits = {
    type: 'string',
    enum: ['6', '8'],
  };
  return copy;
}
