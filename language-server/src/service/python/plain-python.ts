/**
 * A quick proof that an expression is valid Python, for the plain ones most blueprints hold
 * (`return request.user.username`, `groups = [g.name for g in user.groups.all()]`): simple
 * statements, one per line, each starting at the first column, over names, numbers, plain
 * strings, calls, attributes, subscripts, displays, comprehensions and operators. It answers
 * true only for such text; anything else (a block, a tab, an f-string, a lambda, any error) is
 * false, and the grammar parser (`python-syntax.ts`) decides. A cold start pays dearly for the
 * parser (V8 runs its table-driven loop in the interpreter for the first few hundred parses);
 * this recognizer is a small fraction of that work.
 *
 * Sound by construction: what it accepts is a subset of Python's grammar that the parser accepts
 * as the body of the function the service makes, so it never hides a finding. The subset leaves
 * out what Python rejects after parsing (keyword arguments before positional ones, assignment to
 * a call or a keyword) and every token whose reading differs between Python versions.
 */

const enum T {
  Name,
  Number,
  String,
  Newline,
  Op,
  End,
}

/**
 * One token after optional spaces: a comment, a name (not followed by a quote: that is a string
 * prefix), a decimal number (not followed by a letter, digit, dot or quote), a one-line string
 * with the common escapes only (not the start of a triple-quoted one: `"""` is never an empty
 * string and a quote), a line break, an operator. Strings and comments hold no control
 * character and none of the characters some readers take as a line break.
 */
const TOKEN =
  /[ ]*(?:(#[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]*)|([A-Za-z_][A-Za-z0-9_]*)(?!['"])|((?:0|[1-9][0-9]*)(?:\.[0-9]+)?)(?![\w.'"])|("(?!"")(?:[^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|\\[\\'"abfnrtv])*"|'(?!'')(?:[^'\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|\\[\\'"abfnrtv])*')|(\n)|(\*\*=?|\/\/=?|[=!<>]=|[-+*/%]=|[-+*/%<>=.,:()[\]{}~]))/y;

/** Python's keywords, and the soft ones (`match`, `case`, `type`), which are never taken as plain names here. */
const KEYWORDS = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del',
  'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal',
  'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield', 'match', 'case', 'type',
]); // prettier-ignore

const COMPARISONS = new Set(['<', '>', '==', '>=', '<=', '!=']);
const BINARY = new Set(['+', '-', '*', '/', '//', '%', '**']);
const UNARY = new Set(['+', '-', '~']);
const AUGMENTED = new Set(['+=', '-=', '*=', '/=', '//=', '%=', '**=']);
const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/**
 * Longer text is left to the parser. Below this, its step budget (20,000) is never reached: a step
 * takes every parse stack past at least one token, so steps stay below the characters, plus the
 * function around them.
 */
export const PLAIN_PYTHON_MAX_LENGTH = 4_096;

/** The tokens of `code`, or undefined when it holds anything outside the subset's tokens and layout. */
function tokenize(code: string): { kinds: T[]; texts: string[] } | undefined {
  const kinds: T[] = [];
  const texts: string[] = [];
  const add = (kind: T, text: string): void => {
    kinds.push(kind);
    texts.push(text);
  };
  /** Open brackets: line breaks inside them join lines, and indentation there does not count. */
  let depth = 0;
  let at = 0;
  while (at < code.length) {
    // A logical line starts in the first column: no indentation, so no block and no dedent.
    if (depth === 0 && (at === 0 || code.charCodeAt(at - 1) === 10) && code.charCodeAt(at) === 32) return undefined;
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(code);
    if (!match) return /^ *$/.test(code.slice(at)) && depth === 0 ? { kinds, texts } : undefined;
    at = TOKEN.lastIndex;
    // By index, not destructured: the interpreter runs this loop, and destructuring calls an iterator.
    if (match[1] !== undefined) continue;
    if (match[2] !== undefined) add(T.Name, match[2]);
    else if (match[3] !== undefined) add(T.Number, match[3]);
    else if (match[4] !== undefined) add(T.String, match[4]);
    else if (match[5] !== undefined) {
      if (depth === 0 && kinds.length > 0 && kinds[kinds.length - 1] !== T.Newline) add(T.Newline, '\n');
    } else {
      const op = match[6]!;
      if (op === '(' || op === '[' || op === '{') depth++;
      else if ((op === ')' || op === ']' || op === '}') && --depth < 0) return undefined;
      add(T.Op, op);
    }
  }
  return depth === 0 ? { kinds, texts } : undefined;
}

/** Whether `code`, run as a function body, is surely valid Python (false: not known, ask the parser). */
export function isPlainPython(code: string): boolean {
  if (code.length > PLAIN_PYTHON_MAX_LENGTH) return false;
  const tokens = tokenize(code);
  if (!tokens || tokens.kinds.length === 0) return false;
  const { kinds, texts } = tokens;
  let i = 0;
  const kind = (): T => (i < kinds.length ? kinds[i]! : T.End);
  const isOp = (op: string): boolean => kinds[i] === T.Op && texts[i] === op;
  const isWord = (word: string): boolean => kinds[i] === T.Name && texts[i] === word;
  const take = (op: string): boolean => (isOp(op) ? (i++, true) : false);
  const takeWord = (word: string): boolean => (isWord(word) ? (i++, true) : false);
  // The parser reads `print` before anything but `(` as Python 2's print statement.
  const plainName = (): boolean =>
    kinds[i] === T.Name && !KEYWORDS.has(texts[i]!) && (texts[i] !== 'print' || texts[i + 1] === '(');
  const takeName = (): boolean => (plainName() ? (i++, true) : false);

  const atom = (): boolean => {
    if (takeName() || takeWord('True') || takeWord('False') || takeWord('None')) return true;
    if (kind() === T.Number) return (i++, true);
    if (kind() === T.String) {
      while (kind() === T.String) i++;
      return true;
    }
    const open = kinds[i] === T.Op ? texts[i]! : '';
    const close = CLOSING[open];
    if (!close) return false;
    i++;
    if (take(close)) return true;
    if (open === '{') return braces();
    // A parenthesised expression, a tuple, a list or a generator / list comprehension.
    if (!test()) return false;
    if (isWord('for')) return comprehension() && take(close);
    return restOfList(test) && take(close);
  };
  /** After the first item: `, item` repeated, an optional trailing comma. */
  const restOfList = (item: () => boolean): boolean => {
    while (take(',')) {
      if (kind() === T.Op && (texts[i] === ')' || texts[i] === ']' || texts[i] === '}')) return true;
      if (!item()) return false;
    }
    return true;
  };
  /** A dict or a set display (not empty), or their comprehension; the `{` is taken. */
  const braces = (): boolean => {
    if (!test()) return false;
    if (take(':')) {
      if (!test()) return false;
      if (isWord('for')) return comprehension() && take('}');
      return restOfList(() => test() && take(':') && test()) && take('}');
    }
    if (isWord('for')) return comprehension() && take('}');
    return restOfList(test) && take('}');
  };
  /** `for a, b in iterable` clauses and `if` filters. */
  const comprehension = (): boolean => {
    while (takeWord('for')) {
      if (!takeName()) return false;
      while (take(',')) if (!takeName()) return false;
      if (!takeWord('in') || !orTest()) return false;
      while (takeWord('if')) if (!orTest()) return false;
    }
    return true;
  };
  /** Positional arguments, then keyword ones (`name=value`); the `(` is taken. */
  const callArguments = (): boolean => {
    let keywords = false;
    while (!isOp(')')) {
      if (plainName() && kinds[i + 1] === T.Op && texts[i + 1] === '=') {
        i += 2;
        keywords = true;
      } else if (keywords) return false;
      if (!test()) return false;
      if (!take(',')) break;
    }
    return take(')');
  };
  /** An index, or a slice `a:b:c` with any part left out. */
  const subscript = (): boolean => {
    const ends = (): boolean => isOp(':') || isOp(']') || isOp(',');
    const index = !isOp(':');
    if (index && !test()) return false;
    if (!take(':')) return index;
    if (!ends() && !test()) return false;
    if (!take(':')) return true;
    return isOp(']') || isOp(',') || test();
  };
  /** An atom with its trailers; `lastIsCall` tells a target (`a.b`, `a[0]`) from a call. */
  let lastIsCall = false;
  const primary = (): boolean => {
    if (!atom()) return false;
    lastIsCall = false;
    for (;;) {
      if (take('.')) {
        if (!takeName()) return false;
        lastIsCall = false;
      } else if (take('(')) {
        if (!callArguments()) return false;
        lastIsCall = true;
      } else if (take('[')) {
        if (!subscript() || !restOfList(subscript) || !take(']')) return false;
        lastIsCall = false;
      } else return true;
    }
  };
  /** Operands joined by arithmetic operators, each with any unary signs: every such chain is valid. */
  const arithmetic = (): boolean => {
    do {
      while (kind() === T.Op && UNARY.has(texts[i]!)) i++;
      if (!primary()) return false;
    } while (kind() === T.Op && BINARY.has(texts[i]!) && (i++, true));
    return true;
  };
  const comparison = (): boolean => {
    if (!arithmetic()) return false;
    for (;;) {
      if (kind() === T.Op && COMPARISONS.has(texts[i]!)) i++;
      else if (takeWord('in')) {
        // `in`
      } else if (isWord('not') && kinds[i + 1] === T.Name && texts[i + 1] === 'in') i += 2;
      else if (takeWord('is')) takeWord('not');
      else return true;
      if (!arithmetic()) return false;
    }
  };
  const orTest = (): boolean => {
    do {
      while (takeWord('not'));
      if (!comparison()) return false;
    } while (takeWord('and') || takeWord('or'));
    return true;
  };
  const test = (): boolean => {
    if (!orTest()) return false;
    if (!takeWord('if')) return true;
    return orTest() && takeWord('else') && test();
  };
  /** An assignment target: a name, or an attribute or item of a primary (not a call). */
  const target = (): boolean => plainName() && primary() && !lastIsCall;
  const endOfStatement = (): boolean => kind() === T.End || kind() === T.Newline;
  const statement = (): boolean => {
    if (takeWord('pass')) return true;
    if (takeWord('return')) return endOfStatement() || (test() && restOfList(test));
    // `a = b = value`, `a, b = value`, `a += value`, or an expression.
    const start = i;
    if (target() && kind() === T.Op && AUGMENTED.has(texts[i]!)) return (i++, test() && restOfList(test));
    i = start;
    let assigned = i;
    while (target() && restOfList(target) && take('=')) assigned = i;
    i = assigned;
    return test() && restOfList(test);
  };

  while (kind() !== T.End) {
    if (!statement() || !endOfStatement()) return false;
    if (kind() === T.Newline) i++;
  }
  return true;
}
