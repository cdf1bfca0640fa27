import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { limitProblems, type Problem, type Severity } from '../../language-server/src/service/problem.ts';
import { MAX_NESTING } from '../../language-server/src/service/reading/nesting-depth.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const crashes = (problems: readonly Problem[]) =>
  problems.filter((found) => found.code === 'internal-error' || /call stack/i.test(found.message));

/** A blueprint whose entries value holds `levels` collections nested in each other (the root is one more). */
const nested: Record<string, (levels: number) => { text: string; format?: 'json' }> = {
  'flow sequences': (levels) => ({ text: `version: 1\nentries: ${'['.repeat(levels)}${']'.repeat(levels)}\n` }),
  'flow sequences after an anchor (the yaml package)': (levels) => ({
    text: `version: 1\nentries: &deep ${'['.repeat(levels)}${']'.repeat(levels)}\n`,
  }),
  'compact block sequences': (levels) => ({ text: `version: 1\nentries:\n${'- '.repeat(levels)}x\n` }),
  'block mappings': (levels) => ({
    text: `version: 1\nentries:\n${Array.from({ length: levels }, (_, i) => `${' '.repeat(2 + i)}k:\n`).join('')}`,
  }),
  'JSON arrays': (levels) => ({
    text: `{"version": 1, "entries": ${'['.repeat(levels)}${']'.repeat(levels)}}`,
    format: 'json',
  }),
  'JSON objects': (levels) => ({
    text: `{"version": 1, "entries": ${'{"k": '.repeat(levels)}1${'}'.repeat(levels)}}`,
    format: 'json',
  }),
};

describe('input too large for recursion', () => {
  it('keeps every finding of a document with more than 120,000 problems', () => {
    const count = 130_000;
    const text = `version: 1\nentries:\n${'  - model: nope.nope\n'.repeat(count)}`;
    const problems = service.doValidation(text);
    expect(crashes(problems)).toEqual([]);
    expect(problems.filter((found) => found.code === 'model-unknown')).toHaveLength(count);
  });

  for (const [shape, make] of Object.entries(nested)) {
    it(`checks ${shape} nested as deep as allowed`, () => {
      // The root is level 1: entries may hold MAX_NESTING - 1 levels.
      const { text, format } = make(MAX_NESTING - 1);
      const problems = service.doValidation(text, format);
      expect(crashes(problems)).toEqual([]);
      expect(problems.map((found) => found.code)).not.toContain('nesting-too-deep');
    });

    for (const levels of [MAX_NESTING, 3_000, 100_000]) {
      if (shape === 'block mappings' && levels > 3_000) continue; // its indentation would be gigabytes
      it(`reports ${levels.toLocaleString('en')} levels of ${shape} as nesting-too-deep`, () => {
        const { text, format } = make(levels);
        const problems = service.doValidation(text, format);
        expect(crashes(problems)).toEqual([]);
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatchObject({ code: 'nesting-too-deep', severity: 'error' });
        expect(problems[0]!.message).toContain(`${MAX_NESTING} levels`);
      });
    }
  }

  // Each entry with an anchor is read by the yaml package; the collections the fast reader had
  // opened in it must not add up across entries to a false "nested too deep".
  for (const [what, attrs] of [
    ['an anchor', '      name: &a "group {i}"\n      is_superuser: false\n'],
    ['an anchor and its alias', '      name: &a "group {i}"\n      attributes: {title: *a}\n'],
  ] as const) {
    it(`checks a file of ${MAX_NESTING} entries each holding ${what}`, () => {
      const entry = (i: number) =>
        `  - model: idp_core.group\n    identifiers:\n      name: "group ${i}"\n    attrs:\n${attrs.replace('{i}', String(i))}`;
      const entries = Array.from({ length: MAX_NESTING }, (_, i) => entry(i)).join('');
      const text = `version: 1\nentries:\n${entries}  - model: idp_core.grop\n`;
      const problems = service.doValidation(text);
      expect(problems.map((found) => [found.code, found.message])).toEqual([
        ['model-unknown', "Unknown model 'idp_core.grop'. Did you mean 'idp_core.group'?"],
      ]);
    });
  }

  it('counts the levels of a named group’s entry read by the yaml package from the group’s level', () => {
    // root, entries, the group, the entry, then the brackets: one level too many.
    const brackets = MAX_NESTING - 3;
    for (const anchor of ['', '&a ']) {
      const text = `version: 1\nentries:\n  g:\n    - model: x\n      k: ${anchor}${'['.repeat(brackets)}${']'.repeat(brackets)}\n`;
      expect(service.doValidation(text).map((found) => found.code)).toEqual(['nesting-too-deep']);
    }
  });

  it('does not count brackets in quotes, comments, plain scalars and block scalars', () => {
    const brackets = '['.repeat(MAX_NESTING + 10);
    const text = [
      'version: 1',
      `# ${brackets}`,
      'metadata:',
      `  name: 'a ${brackets}'`,
      '  labels:',
      `    a: "${brackets}"`,
      `    b: x${brackets}`,
      '    c: |',
      `      ${brackets}`,
      'entries: []',
      '',
    ].join('\n');
    expect(service.doValidation(text).map((found) => found.code)).not.toContain('nesting-too-deep');
  });
});

describe('limitProblems', () => {
  const at = (offset: number, severity: Severity = 'error'): Problem => ({
    range: [offset, offset + 1],
    severity,
    code: 'model-unknown',
    message: `at ${offset}`,
  });
  const cases: { name: string; problems: Problem[]; max: number; length: number; last?: Partial<Problem> }[] = [
    { name: 'none', problems: [], max: 3, length: 0 },
    { name: 'exactly max', problems: [at(1), at(2), at(3)], max: 3, length: 3, last: { message: 'at 3' } },
    {
      name: 'one over, a warning hidden',
      problems: [at(1), at(2), at(3), at(4, 'warning')],
      max: 3,
      length: 4,
      last: { code: 'problems-not-shown', severity: 'warning', range: [4, 4], message: '1 more problem not shown (at most 3 are shown per document).' }, // prettier-ignore
    },
    {
      name: 'the most severe hidden one sets the severity',
      problems: [at(1), at(2, 'information'), at(3, 'error'), at(4, 'warning')],
      max: 1,
      length: 2,
      last: { severity: 'error', range: [2, 2], message: '3 more problems not shown (at most 1 are shown per document).' }, // prettier-ignore
    },
    {
      name: 'only information hidden',
      problems: [at(1), at(2, 'information')],
      max: 1,
      length: 2,
      last: { severity: 'information' },
    },
  ];
  for (const { name, problems, max, length, last } of cases) {
    it(name, () => {
      const limited = limitProblems(problems, max);
      expect(limited).toHaveLength(length);
      expect(limited.slice(0, Math.min(max, problems.length))).toEqual(problems.slice(0, max));
      if (last) expect(limited[limited.length - 1]).toMatchObject(last);
    });
  }
});
