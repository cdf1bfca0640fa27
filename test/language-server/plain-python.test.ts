import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainPython, PLAIN_PYTHON_MAX_LENGTH } from '../../language-server/src/service/python/plain-python.ts';
import { parsedProblem, pythonProblem } from '../../language-server/src/service/python/python-syntax.ts';

// The quick proof must never call valid what the grammar parser rejects: generated statements of
// its subset are valid for both, and no text it accepts, however mangled, has a parser finding.

/** Random choices from a seed (fast-check draws the seeds, so a failure is reproduced by its seed). */
function chooser(seed: number) {
  let state = seed >>> 0 || 1;
  const below = (count: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % count;
  };
  return { below, pick: <T>(items: readonly T[]): T => items[below(items.length)]! };
}

type Tokens = string[];
const names = ['a', 'request', 'user', 'groups', '_x', 'x1', 'iffy', 'nota', 'orb', 'instance', 'isx', 'printer'];
const numbers = ['0', '1', '42', '3.14', '0.5'];
const strings = ['"x"', "'y'", '"a b"', '"\\n"', "'it\\'s'", '""', '"# no comment"', '"é"', '"\\\\"'];
const binaries = ['+', '-', '*', '/', '//', '%', '**'];
const comparisons = ['<', '>', '==', '>=', '<=', '!=', 'in', 'not in', 'is', 'is not'];
const augmented = ['+=', '-=', '*=', '/=', '//=', '%=', '**='];

/** Statements of the subset, as tokens, nested at most `depth` brackets deep. */
function statementOf(seed: number, depth: number): Tokens {
  const { below, pick } = chooser(seed);
  const repeat = (min: number, max: number, item: () => Tokens, trailing = false): Tokens => {
    const count = min + below(max - min + 1);
    const out: Tokens = [];
    for (let i = 0; i < count; i++) out.push(...(i > 0 ? [','] : []), ...item());
    if (trailing && count > 0 && below(2) === 0) out.push(',');
    return out;
  };
  const comprehension = (level: number): Tokens => [
    'for', ...repeat(1, 2, () => [pick(names)]), 'in', ...orTest(level), ...(below(2) ? ['if', ...orTest(level)] : []),
  ]; // prettier-ignore
  const atom = (level: number): Tokens => {
    const choice = level <= 0 || below(2) ? below(4) : below(12);
    const inner = level - 1;
    switch (choice) {
      case 0: return [pick(names)];
      case 1: return [pick(numbers)];
      case 2: return below(3) ? [pick(strings)] : [pick(strings), pick(strings)];
      case 3: return [pick(['True', 'False', 'None'])];
      case 4: return pick([['(', ')'], ['[', ']'], ['{', '}']]);
      case 5: {
        const items = repeat(1, 3, () => test(inner));
        return ['(', ...items, ...(items.includes(',') || below(2) ? [] : [',']), ')'];
      }
      case 6: return ['(', ...test(inner), ')'];
      case 7: return ['[', ...repeat(1, 3, () => test(inner), true), ']'];
      case 8: return ['{', ...repeat(1, 3, () => test(inner), true), '}'];
      case 9: return ['{', ...repeat(1, 2, () => [...test(inner), ':', ...test(inner)], true), '}'];
      case 10: {
        const [open, close] = pick([['(', ')'], ['[', ']'], ['{', '}']]);
        return [open!, ...test(inner), ...comprehension(inner), close!];
      }
      default: return ['{', ...test(inner), ':', ...test(inner), ...comprehension(inner), '}'];
    }
  }; // prettier-ignore
  const subscript = (level: number): Tokens => {
    const part = (): Tokens => (below(2) ? test(level) : []);
    const choice = below(3);
    if (choice === 0) return test(level);
    if (choice === 1) return [...part(), ':', ...part()];
    return [...part(), ':', ...part(), ':', ...part()];
  };
  const callArguments = (level: number): Tokens => {
    const positional = below(3);
    const keywords = below(2) ? 0 : 1 + below(2);
    const args: Tokens[] = [];
    for (let i = 0; i < positional; i++) args.push(test(level));
    for (let i = 0; i < keywords; i++) args.push([pick(names), '=', ...test(level)]);
    const out = args.flatMap((arg, i) => [...(i > 0 ? [','] : []), ...arg]);
    return args.length > 0 && below(3) === 0 ? [...out, ','] : out;
  };
  const trailers = (level: number, count: number): Tokens => {
    const out: Tokens = [];
    for (let i = 0; i < count; i++) {
      const choice = level <= 0 ? 0 : below(3);
      if (choice === 0) out.push('.', pick(names));
      else if (choice === 1) out.push('(', ...callArguments(level - 1), ')');
      else out.push('[', ...repeat(1, 2, () => subscript(level - 1)), ']');
    }
    return out;
  };
  // A number takes no trailer: `1.real` reads as the number `1.` and a name.
  const primary = (level: number): Tokens => {
    const first = atom(level);
    return /^[0-9]/.test(first[0]!) ? first : [...first, ...trailers(level, below(3))];
  };
  const arithmetic = (level: number): Tokens => {
    const out: Tokens = [];
    const count = below(3) ? 1 : 2;
    for (let i = 0; i < count; i++) {
      if (i > 0) out.push(pick(binaries));
      for (let signs = below(3); signs > 1; signs--) out.push(pick(['-', '+', '~']));
      out.push(...primary(level));
    }
    return out;
  };
  const orTest = (level: number): Tokens => {
    const out: Tokens = [];
    const count = below(3) ? 1 : 2;
    for (let i = 0; i < count; i++) {
      if (i > 0) out.push(pick(['and', 'or']));
      if (below(4) === 0) out.push('not');
      out.push(...arithmetic(level));
      if (below(3) === 0) out.push(...pick(comparisons).split(' '), ...arithmetic(level));
    }
    return out;
  };
  const test = (level: number): Tokens =>
    below(5) === 0 ? [...orTest(level), 'if', ...orTest(level), 'else', ...test(level)] : orTest(level);
  const target = (): Tokens => {
    const out = [pick(names)];
    for (let i = below(3); i > 0; i--) out.push(...(below(2) ? ['.', pick(names)] : ['[', ...test(depth - 1), ']']));
    return out;
  };
  switch (below(5)) {
    case 0: return ['return', ...(below(3) ? repeat(1, 2, () => test(depth)) : [])];
    case 1: return ['pass'];
    case 2: return [...target(), ...(below(2) ? [',', ...target()] : []), '=', ...(below(3) === 0 ? [...target(), '='] : []), ...test(depth)];
    case 3: return [...target(), pick(augmented), ...test(depth)];
    default: return test(depth);
  }
} // prettier-ignore

const wordLike = (token: string): boolean => /^[\w"']/.test(token) || /[\w"']$/.test(token);

/** Tokens written out: spaces where the tokens need them (and more), line breaks and comments inside brackets. */
const written = (tokens: Tokens, layout: number[]): string => {
  let text = '';
  let depth = 0;
  tokens.forEach((token, i) => {
    const choice = layout[i % layout.length]!;
    if (i > 0) {
      const needed = wordLike(tokens[i - 1]!) && wordLike(token);
      if (depth > 0 && choice === 3) text += '\n      ';
      else if (depth > 0 && choice === 4) text += '  # note\n';
      else if (needed || choice === 1) text += ' ';
      else if (choice === 2) text += '  ';
    }
    text += token;
    if ('([{'.includes(token)) depth++;
    if (')]}'.includes(token)) depth--;
  });
  return text;
};

const program = fc
  .tuple(
    fc.array(fc.integer(), { minLength: 1, maxLength: 3 }),
    fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
    fc.constantFrom('\n', '\n\n', '\n# comment\n'),
    fc.constantFrom('', '\n', '  # done'),
  )
  .map(
    ([seeds, layout, between, end]) => seeds.map((seed) => written(statementOf(seed, 2), layout)).join(between) + end,
  );

describe('the quick proof of plain Python', () => {
  it('accepts the statements of its subset, which the parser accepts too', () => {
    fc.assert(
      fc.property(program, (code) => {
        // Longer text is the parser's, by design (and may exceed its step budget).
        const plain = code.length <= PLAIN_PYTHON_MAX_LENGTH;
        expect(isPlainPython(code), code).toBe(plain);
        if (plain) expect(parsedProblem(code), code).toBeUndefined();
      }),
      { numRuns: 1500 },
    );
  });

  it('accepts nothing the parser rejects, however the text is mangled', () => {
    const edit = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('', ' ', '\n', '(', ')', ':', ',', '=', '"', '#', '.', 'if', 'not', '\t', '  '));
    fc.assert(
      fc.property(program, fc.array(edit, { minLength: 1, maxLength: 3 }), (code, edits) => {
        let mangled = code;
        for (const [at, length, insert] of edits) {
          const from = at % (mangled.length + 1);
          mangled = mangled.slice(0, from) + insert + mangled.slice(from + (length % 3));
        }
        if (isPlainPython(mangled)) expect(parsedProblem(mangled), mangled).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  }); // prettier-ignore

  it('leaves what it does not cover to the parser', () => {
    for (const code of [
      'if user.is_active:\n    return True\nreturn False', // a block
      '  return 1', // indented
      'return 1\n  ', // a line of spaces
      'return f"{user}"', // an f-string
      'return lambda x: x', // a lambda
      'return x\treturn y', // a tab
      'x = 1; return x', // two statements on a line
      'return a[]', // an empty subscript
      'f(a=1, b)', // a positional argument after a keyword one
      'f() = 1', // assignment to a call
      'None = 1', // assignment to a keyword
      'return 01', // a leading zero
      'return 1.real', // a number running into a name
      'return (1', // an open bracket
      '# only a comment', // no statement
      'return x if y', // no else
      'x = """# a"', // an empty string and a quote: a triple-quoted string, never closed
      "x = '''a'''", // a triple-quoted string
    ]) {
      expect(isPlainPython(code), code).toBe(false);
    }
    expect(pythonProblem('return a[]')).toMatchObject({ kind: 'unexpected' });
    expect(pythonProblem('x = """# a"')).toMatchObject({ kind: 'unclosed-string' });
  });
});
