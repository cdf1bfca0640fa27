import { doHover } from '../service/hover/hover.ts';
import type { BlueprintFormat, LanguageService } from '../service/language-service.ts';
import type { Problem } from '../service/problem.ts';

/** The most allowed values listed under a finding; a longer list would bury the report. */
export const MAX_LISTED_VALUES = 10;

const ENUM_FINDING = /\bone of\b/i;
/** The enumeration among the facts of a hover: `- One of: \`a\`, \`b\``. */
const ONE_OF_LINE = /^- One of: (.*)$/m;
/** Markdown code spans: `a`, or `` a`b `` for text holding a backtick. */
const CODE_SPAN = /``\s(.*?)\s``|`([^`]*)`/g;

/**
 * The allowed values of each finding about a value outside an enumeration whose message does not
 * already show them all (it names the nearest value, or the first few and points to the hover).
 * An editor shows them on hover; a terminal has none, so the stylish report lists them, when
 * there are at most MAX_LISTED_VALUES. They are read from the service's own hover at the value.
 */
export function allowedValues(
  service: LanguageService,
  text: string,
  format: BlueprintFormat,
  problems: readonly Problem[],
): Map<Problem, string[]> {
  const found = new Map<Problem, string[]>();
  const candidates = problems.filter((problem) => ENUM_FINDING.test(problem.message));
  if (candidates.length === 0) return found;
  const root = service.createDocumentValidator(format).parse(text);
  for (const problem of candidates) {
    const line = ONE_OF_LINE.exec(doHover(root, problem.range[0], service.index, text)?.markdown ?? '')?.[1];
    if (line === undefined) continue;
    const values = [...line.matchAll(CODE_SPAN)].map((match) => match[1] ?? match[2]!);
    if (values.length === 0 || values.length > MAX_LISTED_VALUES) continue;
    if (problem.message.includes(`one of: ${values.join(', ')}.`)) continue;
    found.set(problem, values);
  }
  return found;
}
