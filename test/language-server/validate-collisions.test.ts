import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { createLineIndex } from '../../language-server/src/service/reading/text-document.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const blueprint = (...entries: string[]) => `version: 1\nentries:\n${entries.join('')}`;
/** A flow entry: its identifiers, then any more keys (each line indented for the entry). */
const flow = (identifiers: string, more = '') =>
  `  - model: idp_flows.flow\n    identifiers: ${identifiers}\n${more}    attrs:\n      name: A flow\n`;
const lineOf = (text: string, offset: number) => createLineIndex(text).positionAt(offset).line + 1;

describe('entries that select the same object', () => {
  // Each row: a blueprint whose second flow entry selects the first's object (its identifiers on
  // line `line`, the first entry on line `first`), and its corrected twin.
  const cases: { name: string; mistake: string; line: number; first: number; fixed: string }[] = [
    {
      name: 'the same slug twice',
      mistake: blueprint(flow('{slug: login}'), flow('{slug: login}')),
      line: 8,
      first: 3,
      fixed: blueprint(flow('{slug: login}'), flow('{slug: logout}')),
    },
    {
      name: 'the same identifiers in another order, one quoted',
      mistake: blueprint(flow('{slug: login, title: Login}'), flow('{title: "Login", slug: "login"}')),
      line: 8,
      first: 3,
      fixed: blueprint(flow('{slug: login, title: Login}'), flow('{title: "Log in", slug: "login"}')),
    },
    {
      name: 'in two named groups',
      mistake: 'version: 1\nentries:\n  first:\n    - model: idp_flows.flow\n      identifiers: {slug: login}\n  second:\n    - model: idp_flows.flow\n      identifiers: {slug: login}\n',
      line: 8,
      first: 4,
      fixed: 'version: 1\nentries:\n  first:\n    - model: idp_flows.flow\n      identifiers: {slug: login}\n  second:\n    - model: idp_flows.flow\n      identifiers: {slug: signup}\n',
    },
    {
      name: 'the same !KeyOf target',
      mistake: blueprint(flow('{slug: f}', '    id: f\n'), `  - model: idp_flows.flowstagebinding\n    identifiers: {target: !KeyOf f, order: 10}\n`, `  - model: idp_flows.flowstagebinding\n    identifiers: {target: !KeyOf f, order: 10}\n`),
      line: 11,
      first: 8,
      fixed: blueprint(flow('{slug: f}', '    id: f\n'), `  - model: idp_flows.flowstagebinding\n    identifiers: {target: !KeyOf f, order: 10}\n`, `  - model: idp_flows.flowstagebinding\n    identifiers: {target: !KeyOf f, order: 20}\n`),
    },
  ]; // prettier-ignore

  it.each(cases)('warns on the second: $name', ({ mistake, line, first }) => {
    const problems = service.doValidation(mistake);
    expect(problems.map(({ code, severity }) => ({ code, severity }))).toEqual([
      { code: 'identifiers-collision', severity: 'warning' },
    ]);
    const [found] = problems;
    expect(mistake.slice(...found!.range)).toBe('identifiers');
    expect(lineOf(mistake, found!.range[0])).toBe(line);
    expect(found!.message).toContain(`as the entry at line ${first}`);
    expect(found!.message).toMatch(
      /^This entry selects the same idp_flows\.\w+ as the entry at line \d+ \(identifiers \{/,
    );
  });

  it.each(cases)('no finding when corrected: $name', ({ fixed }) => {
    expect(service.doValidation(fixed)).toEqual([]);
  });

  const silent: [string, string][] = [
    ['the second deletes it (state: absent)', blueprint(flow('{slug: a}'), flow('{slug: a}', '    state: absent\n'))],
    ['deleted between the two: the last starts afresh', blueprint(flow('{slug: a}'), flow('{slug: a}', '    state: absent\n'), flow('{slug: a}'))],
    ['the second only creates when missing (state: created)', blueprint(flow('{slug: a}'), flow('{slug: a}', '    state: created\n'))],
    ['one applies under a condition', blueprint(flow('{slug: a}', '    conditions: [!Context first]\n'), flow('{slug: a}'))],
    ['different models with the same identifiers', blueprint(flow('{name: a}'), '  - model: idp_core.group\n    identifiers: {name: a}\n')],
    ['identifiers that are a superset', blueprint(flow('{slug: a}'), flow('{slug: a, name: b}'))],
    ['computed identifiers', blueprint('  - model: idp_flows.flow\n    identifiers: !Context ids\n', '  - model: idp_flows.flow\n    identifiers: !Context ids\n')],
  ]; // prettier-ignore
  it.each(silent)('no finding: %s', (_name, text) => {
    expect(service.doValidation(text)).toEqual([]);
  });

  it('names the last entry that set the object when there are three', () => {
    const text = blueprint(flow('{slug: a}'), flow('{slug: a}'), flow('{slug: a}'));
    const found = service.doValidation(text).map((problem) => [lineOf(text, problem.range[0]), problem.message]);
    expect(found.map(([line]) => line)).toEqual([8, 12]);
    expect(String(found[1]![1])).toContain('as the entry at line 7');
  });
});
