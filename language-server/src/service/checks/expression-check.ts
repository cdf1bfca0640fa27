import { problem, serviceCodes, withFix, type Problem, type Range } from '../problem.ts';
import { expressionFields } from '../python/expression-fields.ts';
import { MAX_EXPRESSION_LENGTH, pythonProblem, type PythonProblem } from '../python/python-syntax.ts';
import type { BScalar } from '../reading/blueprint-node.ts';
import { scalarSource, type ScalarSource } from '../reading/scalar-source.ts';
import type { Check } from './check.ts';

const codes = serviceCodes;

/**
 * The Python of an entry's expressions, parsed as the service compiles it
 * (`python/python-syntax.ts`); the first syntax error of each is reported where it is in the
 * YAML text, through block indentation, escapes and folded lines. Each parse is bounded.
 */
export const expressionCheck: Check = {
  id: 'expressions',
  checkEntry: (entry, context, problems) => {
    const fields = expressionFields(entry, context.index);
    for (let i = 0; i < fields.length; i++) checkExpression(fields[i]!.node, context.text, problems);
  },
};

function checkExpression(node: BScalar, text: string, problems: Problem[]): void {
  const code = node.value as string;
  // An empty value is the schema's to judge (most expressions must not be empty).
  if (code === '') return;
  const found = pythonProblem(code);
  if (!found) return;
  const source = scalarSource(text, node);
  if (found.kind === 'not-checked') {
    const why =
      found.reason === 'length'
        ? `it is longer than ${MAX_EXPRESSION_LENGTH.toLocaleString('en')} characters`
        : 'it is too tangled to parse within the checker’s bounds';
    problems.push(
      problem(codes, 'expression-not-checked', node.range, `This expression's Python is not checked: ${why}.`),
    );
    return;
  }
  const range = source ? rangeOf(found, code, source) : node.range;
  const result = problem(codes, 'expression-syntax', range, messageOf(found, code) + foldNote(found, source));
  const literal = source && literalFix(found, code, source);
  problems.push(literal ? withFix(result, 'Write as a literal block (|)', literal, '|') : result);
}

function messageOf(found: Exclude<PythonProblem, { kind: 'not-checked' }>, code: string): string {
  const before = code.slice(0, found.at);
  const line = before.split('\n').length;
  const column = found.at - before.lastIndexOf('\n');
  const where = `line ${line}, column ${column} of the expression`;
  switch (found.kind) {
    case 'empty':
      return 'The expression has no Python statement, only blank lines or comments: the service runs it as the body of a function, which needs one (e.g. return None).';
    case 'incomplete':
      return 'Python syntax error: the expression ends while a bracket, a string or a block is still open.';
    case 'unclosed-string':
      return `Python syntax error at ${where}: this string is not closed.`;
    case 'dedent':
      return `Python syntax error at ${where}: this line is indented less than the first line. The service runs the expression as the body of a function, so no line may be indented less than the first.`;
    case 'unexpected': {
      const firstOnLine = line > 1 && /^[ \t]*$/.test(before.slice(before.lastIndexOf('\n') + 1));
      const indentation = firstOnLine ? ' Check the indentation of this line.' : '';
      return `Python syntax error at ${where}: '${found.token}' is not expected here.${indentation}`;
    }
  }
}

/** Lines joined into one by YAML's folding, before the error: the usual cause of a broken expression. */
function foldNote(found: PythonProblem, source: ScalarSource | undefined): string {
  if (!source || !foldedBefore(found, source)) return '';
  if (source.style === 'folded') {
    return ' The folded block (>) joins its lines into one line of Python: write | to keep the line breaks.';
  }
  const style = source.style === 'plain' ? 'plain' : 'quoted';
  return ` This ${style} value joins its lines with spaces into one line of Python: write the expression as a literal block (|).`;
}

function foldedBefore(found: PythonProblem, source: ScalarSource): boolean {
  return source.folds.some((fold) => fold < found.at);
}

/** The `>` to replace by `|`, when the expression read with its line breaks kept compiles. */
function literalFix(found: PythonProblem, code: string, source: ScalarSource): Range | undefined {
  if (source.style !== 'folded' || source.indicator === undefined || !foldedBefore(found, source)) return undefined;
  let kept = '';
  let last = 0;
  for (const fold of source.folds) {
    kept += code.slice(last, fold) + '\n';
    last = fold + 1;
  }
  kept += code.slice(last);
  return pythonProblem(kept) ? undefined : [source.indicator, source.indicator + 1];
}

/** Where in the text the problem is: the unexpected token, the last character, the line. */
function rangeOf(found: PythonProblem, code: string, source: ScalarSource): Range {
  const { offsets } = source;
  if (found.kind === 'empty') return [offsets[0]!, offsets[code.length - 1]! + 1];
  let start = found.at;
  let length = 1;
  if (found.kind === 'incomplete') {
    start = code.length - 1;
    while (start > 0 && /\s/.test(code[start]!)) start--;
  } else if (found.kind === 'unexpected') length = Math.max(1, found.token.length);
  else if (found.kind === 'dedent') length = Math.max(1, /^\S*/.exec(code.slice(start))![0].length);
  const from = offsets[start]!;
  const last = offsets[start + length - 1]!;
  // A token that the YAML text writes in one piece is covered whole; else its first character.
  return [from, last - from === length - 1 ? last + 1 : from + 1];
}
