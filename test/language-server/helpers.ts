import { checkTags } from '../../language-server/src/service/tags.ts';
import { parseBlueprint } from '../../language-server/src/service/parse-blueprint.ts';
import type { Problem } from '../../language-server/src/service/problem.ts';

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
