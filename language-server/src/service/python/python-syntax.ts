import { parser } from '@lezer/python';
import { isPlainPython } from './plain-python.ts';

type Tree = ReturnType<typeof parser.parse>;
type SyntaxNode = ReturnType<Tree['resolveInner']>;

/**
 * The service runs an expression as the body of a function: it indents every line that is not
 * blank by four spaces under `def handler(<its variables>):`, adds `result = handler(...)` and
 * compiles that. So `return` is fine at the top of an expression, an expression without a
 * statement is a syntax error, and a line indented less than the first one leaves the function.
 * We parse the same text (the variables do not change the syntax) with a Python grammar, in
 * process.
 */
const HEAD = 'def handler():\n';
const TAIL = '\nresult = handler()';
const BODY_INDENT = '    ';

/** Longer expressions are not parsed: no real one comes near (a parse is bounded in time). */
export const MAX_EXPRESSION_LENGTH = 16_384;
/** A parse that needs more steps (roughly tokens, more when recovering from errors) is given up. */
const MAX_PARSE_STEPS = 20_000;

/** The expression as the service compiles it, and how its offsets map back. */
interface Wrapped {
  text: string;
  /** Per line of the expression: where it starts in the expression and in `text`, and the indent added. */
  lines: { code: number; wrapped: number; shift: number }[];
  /** Where the tail starts in `text`: past the expression. */
  tailStart: number;
}

function wrap(code: string): Wrapped {
  const lines: Wrapped['lines'] = [];
  let text = HEAD;
  let at = 0;
  for (const line of code.split('\n')) {
    const shift = line.trim() === '' ? 0 : BODY_INDENT.length;
    lines.push({ code: at, wrapped: text.length, shift });
    text += (shift ? BODY_INDENT : '') + line + '\n';
    at += line.length + 1;
  }
  text = text.slice(0, -1);
  const tailStart = text.length;
  return { text: text + TAIL, lines, tailStart };
}

/** The offset in the expression of an offset in the wrapped text (the expression's end past it). */
function toCode(wrapped: Wrapped, offset: number, codeLength: number): number {
  if (offset >= wrapped.tailStart) return codeLength;
  let line = wrapped.lines[0]!;
  for (const each of wrapped.lines) {
    if (each.wrapped > offset) break;
    line = each;
  }
  return Math.min(codeLength, line.code + Math.max(0, offset - line.wrapped - line.shift));
}

function toWrapped(wrapped: Wrapped, offset: number): number {
  let line = wrapped.lines[0]!;
  for (const each of wrapped.lines) {
    if (each.code > offset) break;
    line = each;
  }
  return line.wrapped + line.shift + (offset - line.code);
}

/** A parse within the budget, or undefined. */
function parseBounded(text: string): Tree | undefined {
  const parse = parser.startParse(text);
  for (let step = 0; step < MAX_PARSE_STEPS; step++) {
    const tree = parse.advance();
    if (tree) return tree;
  }
  return undefined;
}

export type PythonProblem =
  /** A token Python does not expect there. */
  | { kind: 'unexpected'; at: number; token: string }
  /** The expression ends inside something open: a bracket, a string, a block. */
  | { kind: 'incomplete'; at: number }
  /** A string literal without its closing quote. */
  | { kind: 'unclosed-string'; at: number }
  /** A line indented less than the first line: it is outside the function the service makes. */
  | { kind: 'dedent'; at: number }
  /** Only blank lines and comments: a function body needs a statement. */
  | { kind: 'empty'; at: number }
  /** Too long or too tangled to parse within the bounds: not checked. */
  | { kind: 'not-checked'; at: number; reason: 'length' | 'steps' };

/**
 * Problems of the expressions read last, by their text: a blueprint often repeats an expression
 * (the same mapping for several sources), and an edit re-checks entries whose expressions did not
 * change. Oldest out first.
 */
const recent = new Map<string, PythonProblem | undefined>();
const RECENT_SIZE = 512;

/** The first syntax problem of an expression as the service compiles it, or undefined when there is none. */
export function pythonProblem(code: string): PythonProblem | undefined {
  if (recent.has(code)) return recent.get(code);
  const found = readProblem(code);
  if (recent.size >= RECENT_SIZE) recent.delete(recent.keys().next().value!);
  recent.set(code, found);
  return found;
}

function readProblem(code: string): PythonProblem | undefined {
  if (code.length > MAX_EXPRESSION_LENGTH) return { kind: 'not-checked', at: 0, reason: 'length' };
  // Most expressions are plain statements, proven valid without the (cold-costly) parser.
  return isPlainPython(code) ? undefined : parsedProblem(code);
}

/** What the grammar parser finds in an expression (no longer than MAX_EXPRESSION_LENGTH). */
export function parsedProblem(code: string): PythonProblem | undefined {
  if (code.split('\n').every((line) => /^\s*(#.*)?$/.test(line))) return { kind: 'empty', at: 0 };
  const wrapped = wrap(code);
  const tree = parseBounded(wrapped.text);
  if (!tree) return { kind: 'not-checked', at: 0, reason: 'steps' };
  const error = firstError(tree, wrapped.text);
  const outside = firstOutside(tree, wrapped);
  if (outside !== undefined && (error === undefined || outside <= error.at)) {
    return { kind: 'dedent', at: toCode(wrapped, outside, code.length) };
  }
  if (error === undefined) return undefined;
  if (error.unclosed) return { kind: 'unclosed-string', at: toCode(wrapped, error.at, code.length) };
  // An error is found where the parser gave up, often the line break before the token it did not expect.
  let at = error.at;
  while (at < wrapped.tailStart && /\s/.test(wrapped.text[at]!)) at++;
  if (at >= wrapped.tailStart) return { kind: 'incomplete', at: code.length };
  const codeAt = toCode(wrapped, at, code.length);
  const token = /^(\w+|\S)/.exec(code.slice(codeAt))?.[0] ?? '';
  return { kind: 'unexpected', at: codeAt, token };
}

/** Where the tree first has an error node, or a string without its closing quotes (the grammar lets those end the line). */
function firstError(tree: Tree, text: string): { at: number; unclosed: boolean } | undefined {
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) return { at: cursor.from, unclosed: false };
    if ((cursor.name === 'String' || cursor.name === 'FormatString') && !closed(text.slice(cursor.from, cursor.to))) {
      return { at: cursor.from, unclosed: true };
    }
  } while (cursor.next());
  return undefined;
}

/** A string literal ends with the quotes it starts with, not escaped. */
function closed(literal: string): boolean {
  const body = literal.replace(/^[a-zA-Z]*/, '');
  const quote = body.startsWith('"""') || body.startsWith("'''") ? body.slice(0, 3) : body.slice(0, 1);
  if (body.length < 2 * quote.length || !body.endsWith(quote)) return false;
  let slashes = 0;
  while (body[body.length - quote.length - 1 - slashes] === '\\') slashes++;
  return slashes % 2 === 0;
}

/** The first statement of the top level other than the function and the tail: a line that dedented out of it. */
function firstOutside(tree: Tree, wrapped: Wrapped): number | undefined {
  const cursor = tree.cursor();
  if (!cursor.firstChild()) return undefined;
  do {
    if (cursor.from === 0 || cursor.from >= wrapped.tailStart || cursor.type.isError) continue;
    if (cursor.name === 'Comment') continue;
    return cursor.from;
  } while (cursor.nextSibling());
  return undefined;
}

/**
 * Whether completion of names makes sense at `offset` of an expression: not inside a string
 * (except a replacement field of an f-string) or a comment. Undefined when the expression is not
 * parsed (too long or too tangled).
 */
export function inCodeAt(code: string, offset: number): boolean | undefined {
  if (code.length > MAX_EXPRESSION_LENGTH) return undefined;
  const wrapped = wrap(code);
  const tree = parseBounded(wrapped.text);
  if (!tree) return undefined;
  let node: SyntaxNode | null = tree.resolveInner(toWrapped(wrapped, offset), -1);
  for (; node; node = node.parent) {
    if (node.name === 'FormatReplacement') return true;
    if (node.name === 'Comment' || node.name === 'String' || node.name === 'FormatString') return false;
  }
  return true;
}
