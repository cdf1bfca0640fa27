import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, Scalar, stringify } from 'yaml';
import { doComplete } from '../../language-server/src/service/completion/completion.ts';
import { quickFixes } from '../../language-server/src/service/code-actions/quick-fixes.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';
import { MAX_EXPRESSION_LENGTH, pythonProblem } from '../../language-server/src/service/python/python-syntax.ts';
import type { BNode, BScalar } from '../../language-server/src/service/reading/blueprint-node.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { scalarSource } from '../../language-server/src/service/reading/scalar-source.ts';
import { createLineIndex } from '../../language-server/src/service/reading/text-document.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

/** An entry of `model` whose attrs end with `expression: <value>` (the value's lines indented for the attrs). */
const withExpression = (model: string, value: string, field = 'expression', more = '') =>
  `version: 1\nentries:\n  - model: ${model}\n    identifiers:\n      name: x\n    attrs:\n${more}      ${field}: ${value}\n`;
const policy = (value: string) => withExpression('idp_policies_expression.expressionpolicy', value);
const scope = (value: string) => withExpression('idp_providers_oauth2.scopemapping', value);
const ldapSource = (value: string) => withExpression('idp_sources_ldap.ldapsourcepropertymapping', value);
const prompt = (value: string) =>
  withExpression('idp_stages_prompt.prompt', value, 'placeholder', '      placeholder_expression: true\n');

/** The 1-based line of an offset. */
const lineOf = (text: string, offset: number) => createLineIndex(text).positionAt(offset).line + 1;

// Each row: the mistake (with the text its finding covers and the line of that text), and its
// corrected twin, which has no finding.
const cases: { name: string; mistake: string; covers: string; line: number; message: RegExp; fixed: string }[] = [
  {
    name: 'a folded block joins two statements into one line',
    mistake: policy('>\n        user = request.user\n        return user.is_active\n'),
    covers: 'return',
    line: 9,
    message:
      /^Python syntax error at line 1, column 21 of the expression: 'return' is not expected here\. The folded block \(>\) joins its lines into one line of Python: write \| to keep the line breaks\.$/,
    fixed: policy('|\n        user = request.user\n        return user.is_active\n'),
  },
  {
    name: 'a literal block with a stray token',
    mistake: scope('|\n        return {\n            "groups": [g.name for g in user.groups.all()] x\n        }\n'),
    covers: 'x',
    line: 9,
    message: /^Python syntax error at line 2, column 51 of the expression: 'x' is not expected here\.$/,
    fixed: scope('|\n        return {\n            "groups": [g.name for g in user.groups.all()]\n        }\n'),
  },
  {
    name: 'a block after if: not indented',
    mistake: policy('|\n        if request.user.is_superuser:\n        return True\n        return False\n'),
    covers: 'return',
    line: 9,
    message: /^Python syntax error at line 2, column 1 of the expression: 'return' is not expected here\. Check the indentation of this line\.$/,
    fixed: policy('|\n        if request.user.is_superuser:\n            return True\n        return False\n'),
  },
  {
    name: 'a line indented less than the first leaves the function',
    mistake: policy('|2\n            x = 1\n          return x\n'),
    covers: 'return',
    line: 9,
    message: /^Python syntax error at line 2, column 3 of the expression: this line is indented less than the first line\./,
    fixed: policy('|2\n            x = 1\n            return x\n'),
  },
  {
    name: 'an unclosed bracket at the end',
    mistake: ldapSource('|\n        return {\n            "name": ldap.get("cn"),\n'),
    covers: ',',
    line: 9,
    message: /^Python syntax error: the expression ends while a bracket, a string or a block is still open\.$/,
    fixed: ldapSource('|\n        return {\n            "name": ldap.get("cn"),\n        }\n'),
  },
  {
    name: 'an unclosed string',
    mistake: policy('|\n        return request.user.username == "admin\n'),
    covers: '"',
    line: 8,
    message: /^Python syntax error at line 1, column 33 of the expression: this string is not closed\.$/,
    fixed: policy('|\n        return request.user.username == "admin"\n'),
  },
  {
    name: 'only a comment: a function body needs a statement',
    mistake: policy('"# always passes"'),
    covers: '# always passes',
    line: 7,
    message: /^The expression has no Python statement, only blank lines or comments/,
    fixed: policy('"return True  # always passes"'),
  },
  {
    name: 'a plain scalar over two lines joins them',
    mistake: policy('user = request.user\n        return user.is_active'),
    covers: 'return',
    line: 8,
    message: /This plain value joins its lines with spaces into one line of Python: write the expression as a literal block \(\|\)\.$/,
    fixed: policy('"user = request.user; return user.is_active"'),
  },
  {
    name: 'a double-quoted scalar with escapes',
    mistake: policy('"name = \\"x\\"\\nreturn name name"'),
    covers: 'name',
    line: 7,
    message: /^Python syntax error at line 2, column 13 of the expression: 'name' is not expected here\.$/,
    fixed: policy('"name = \\"x\\"\\nreturn name"'),
  },
  {
    name: 'a prompt placeholder run as Python',
    mistake: prompt('"return [\'a\', \'b\'"'),
    covers: "'",
    line: 8,
    message: /^Python syntax error: the expression ends while a bracket/,
    fixed: prompt('"return [\'a\', \'b\']"'),
  },
]; // prettier-ignore

describe('expressions are Python: one mistake, one error on its line', () => {
  it.each(cases)('$name', ({ mistake, covers, line, message }) => {
    const problems = service.doValidation(mistake);
    expect(problems.map(({ code, severity }) => ({ code, severity }))).toEqual([
      { code: 'expression-syntax', severity: allCodes['expression-syntax'].severity },
    ]);
    const [found] = problems;
    expect(found!.severity).toBe('error');
    expect(mistake.slice(...found!.range)).toBe(covers);
    expect(lineOf(mistake, found!.range[0])).toBe(line);
    expect(found!.message).toMatch(message);
  });

  it.each(cases)('corrected: $name', ({ fixed }) => {
    expect(service.doValidation(fixed)).toEqual([]);
  });
});

describe('what is not Python is not parsed', () => {
  const silent: [string, string][] = [
    ['a prompt placeholder without placeholder_expression', withExpression('idp_stages_prompt.prompt', 'Your name (x y)', 'placeholder')],
    ['an expression computed by a tag', policy('!File /blueprints/policy.py')],
    ['a field named expression of a model that is no mapping', withExpression('idp_core.application', 'x y', 'meta_description')],
    ['an empty RAC mapping expression (the schema allows it)', withExpression('idp_providers_rac.racpropertymapping', '""')],
    ['return at the top (the service wraps the expression in a function)', policy('return True')],
  ]; // prettier-ignore
  it.each(silent)('%s', (_name, text) => {
    expect(service.doValidation(text)).toEqual([]);
  });
});

describe('the folded-block quick fix', () => {
  it('turns > into | when the lines kept apart compile', () => {
    const text = policy('>\n        user = request.user\n        return user.is_active\n');
    const problems = service.doValidation(text);
    const [fix, ...others] = quickFixes(text, problems, problems[0]!.range);
    expect(others).toEqual([]);
    expect(fix!.title).toBe('Write as a literal block (|)');
    const [edit] = fix!.edits;
    const result = text.slice(0, edit!.range[0]) + edit!.newText + text.slice(edit!.range[1]);
    expect(result).toBe(policy('|\n        user = request.user\n        return user.is_active\n'));
    expect(service.doValidation(result)).toEqual([]);
  });

  it('is not offered when the lines kept apart are still broken', () => {
    const text = policy('>\n        user = request.user\n        return user user\n');
    const problems = service.doValidation(text);
    expect(problems.map((found) => found.code)).toEqual(['expression-syntax']);
    expect(problems[0]!.fixes).toBeUndefined();
  });
});

describe('hostile expressions are bounded', () => {
  it('does not parse an expression longer than the limit', () => {
    const text = policy(JSON.stringify('x = 1\n'.repeat(MAX_EXPRESSION_LENGTH / 4)));
    const problems = service.doValidation(text);
    expect(problems.map(({ code, severity }) => ({ code, severity }))).toEqual([
      { code: 'expression-not-checked', severity: 'information' },
    ]);
  });

  it.each([
    ['open brackets', '('.repeat(MAX_EXPRESSION_LENGTH)],
    ['tokens that never make sense', 'return ) ] } : , = '.repeat(MAX_EXPRESSION_LENGTH / 20)],
    ['a staircase of blocks', Array.from({ length: 180 }, (_, depth) => `${' '.repeat(depth)}if a:`).join('\n')],
  ])('answers for %s', (_name, code) => {
    expect(pythonProblem(code)).toBeDefined();
  });
});

/** The string scalar nodes of a tree. */
function scalars(node: BNode | undefined, found: BScalar[] = []): BScalar[] {
  if (node?.kind === 'scalar' && typeof node.value === 'string') found.push(node);
  if (node?.kind === 'seq') for (const item of node.items) scalars(item, found);
  if (node?.kind === 'map') for (const { key, value } of node.entries) scalars(value, scalars(key, found));
  return found;
}

describe('value offsets of a scalar', () => {
  const types: Scalar.Type[] = [
    Scalar.PLAIN,
    Scalar.QUOTE_DOUBLE,
    Scalar.QUOTE_SINGLE,
    Scalar.BLOCK_LITERAL,
    Scalar.BLOCK_FOLDED,
  ];
  const line = fc.stringMatching(/^[a-z =()"'\\:#.]{0,30}$/);
  const value = fc.array(line, { minLength: 1, maxLength: 5 }).map((lines) => lines.join('\n'));

  it('maps every character of a value written in any style back to its text', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(...types), fc.integer({ min: 8, max: 40 }), (written, type, lineWidth) => {
        const document = parseDocument('expression: x\n');
        const scalar = new Scalar(written);
        scalar.type = type;
        document.set('expression', scalar);
        const text = stringify(document, { lineWidth, minContentWidth: 0 });
        const node = scalars(parseBlueprint(text).root).find((found) => found.value === written);
        if (!node) return; // The writer chose another form (a plain value that would read as a number).
        const source = scalarSource(text, node);
        expect(source, text).toBeDefined();
        source!.value.split('').forEach((char, at) => {
          const offset = source!.offsets[at]!;
          // A character is written as itself, or stands for an escape, a line break or a fold.
          const from = text[offset];
          if (from !== char) expect(['\\', '\n', "'"], `${JSON.stringify(text)} at ${at}`).toContain(from);
        });
      }),
      { numRuns: 400 },
    );
  });
});

describe('completion inside an expression', () => {
  /** Completion at `|` in the expression value of `source`. */
  function complete(source: string) {
    const offset = source.indexOf('‸');
    const text = source.replace('‸', '');
    const result = doComplete(text, parseBlueprint(text).root, offset, service.index);
    return { labels: result.items.map((item) => item.label), replaced: text.slice(...result.range), result };
  }

  it("offers a policy the service's helpers and the policy request", () => {
    const { labels, replaced, result } = complete(policy('|\n        return ak_‸\n'));
    expect(replaced).toBe('ak_');
    expect(labels).toEqual(expect.arrayContaining(['ak_is_group_member', 'ak_message', 'ak_client_ip', 'request', 'regex_match']));
    expect(labels).not.toContain('user');
    const item = result.items.find((each) => each.label === 'ak_user_by')!;
    expect(item).toMatchObject({ kind: 'function', detail: 'ak_user_by(**filters)' });
  }); // prettier-ignore

  it('offers a property mapping its user and request, and no policy-only names', () => {
    const { labels } = complete(scope('|\n        return {"name": us‸}\n'));
    expect(labels).toEqual(expect.arrayContaining(['user', 'request', 'ak_user_by']));
    expect(labels).not.toContain('ak_message');
  });

  it("offers the policy request's attributes after request.", () => {
    expect(complete(policy('"return request.‸"')).labels).toEqual(['user', 'http_request', 'obj', 'context']);
  });

  it('offers names on an empty line at the end of a block', () => {
    expect(complete(policy('|\n        x = 1\n        ‸')).labels).toContain('ak_call_policy');
  });

  it('offers nothing inside a Python string or comment', () => {
    expect(complete(policy('|\n        return "ak_‸"\n')).labels).toEqual([]);
    expect(complete(policy('|\n        return True  # ak_‸\n')).labels).toEqual([]);
  });

  it('leaves other values to the blueprint completion', () => {
    const { labels } = complete(
      withExpression('idp_policies_expression.expressionpolicy', 'tru‸', 'execution_logging'),
    );
    expect(labels).toContain('true');
  });
});

describe('lines in messages', () => {
  it('counts the line of the expression, not of the file', () => {
    const text = policy('|\n        x = 1\n        y = 2\n        return x y\n');
    const [found] = service.doValidation(text);
    expect(found!.message).toContain('line 3, column 10 of the expression');
    expect(lineOf(text, found!.range[0])).toBe(10);
  });
});
