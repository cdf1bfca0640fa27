import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { quickFixes } from '../../language-server/src/service/code-actions/quick-fixes.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import {
  findDefinition,
  findReferences,
  prepareRename,
  renameId,
} from '../../language-server/src/service/navigation/navigation.ts';
import type { TextEdit } from '../../language-server/src/service/problem.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const text = `version: 1
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: login
  - model: idp_flows.flowstagebinding
    identifiers:
      target: !KeyOf flow
      stage: !KeyOf "stage"
      order: 10
  - model: idp_stages_dummy.dummystage
    id: stage
    identifiers:
      name: dummy
  - model: idp_flows.flowstagebinding
    identifiers:
      target: !KeyOf flow
      stage: !KeyOf stage
      order: 20
`;
const root = parseBlueprint(text).root;
const at = (needle: string, occurrence = 1, shift = 0) => {
  let offset = -1;
  for (let i = 0; i < occurrence; i++) offset = text.indexOf(needle, offset + 1);
  if (offset < 0) throw new Error(`${needle} not in the text`);
  return offset + shift;
};
const slice = ([start, end]: readonly [number, number]) => text.slice(start, end);

/** A text with edits applied (from the last one backwards, as editors do). */
function apply(source: string, edits: readonly TextEdit[]): string {
  return [...edits]
    .sort((a, b) => b.range[0] - a.range[0])
    .reduce((result, edit) => result.slice(0, edit.range[0]) + edit.newText + result.slice(edit.range[1]), source);
}

describe('go to definition', () => {
  it('goes from !KeyOf x to the id of the entry above', () => {
    const found = findDefinition(text, root, at('!KeyOf flow', 1, 9));
    expect(found?.target.model).toBe('idp_flows.flow');
    expect(found && slice(found.idRange)).toBe('flow');
    expect(found?.idRange[0]).toBe(at('id: flow', 1, 4));
  });

  it('finds nothing for an id defined only below (the service would not either)', () => {
    expect(findDefinition(text, root, at('!KeyOf "stage"', 1, 9))).toBeUndefined();
  });

  it('finds nothing away from ids and references', () => {
    expect(findDefinition(text, root, at('slug: login', 1, 7))).toBeUndefined();
  });
});

describe('references', () => {
  it('lists the !KeyOf that resolve to an id, with or without its declaration', () => {
    const references = findReferences(text, root, at('id: flow', 1, 5), false);
    expect(references.map((range) => range[0])).toEqual([at('!KeyOf flow', 1, 7), at('!KeyOf flow', 2, 7)]);
    const withDeclaration = findReferences(text, root, at('!KeyOf flow', 2, 8), true);
    expect(withDeclaration.map(slice)).toEqual(['flow', 'flow', 'flow']);
  });

  it('leaves out a reference written above its entry (it resolves to nothing)', () => {
    const references = findReferences(text, root, at('id: stage', 1, 5), false);
    expect(references.map((range) => range[0])).toEqual([at('!KeyOf stage', 1, 7)]);
  });
});

describe('rename', () => {
  it('prepares on an id or a reference, with the current name', () => {
    expect(prepareRename(text, root, at('!KeyOf flow', 1, 8))).toMatchObject({ placeholder: 'flow' });
    expect(prepareRename(text, root, at('slug: login'))).toBeUndefined();
  });

  it('renames the id and every reference to it, nothing else', () => {
    const result = renameId(text, root, at('!KeyOf flow', 2, 8), 'login_flow');
    if ('error' in result) expect.fail(result.error);
    const renamed = apply(text, result.edits);
    expect(renamed.match(/login_flow/g)).toHaveLength(3);
    expect(renamed).toContain('    id: login_flow\n');
    expect(service.doValidation(renamed).filter((found) => found.code.startsWith('keyof'))).toHaveLength(1);
  });

  it('quotes a name that is not a plain scalar, and keeps the quotes already there', () => {
    const result = renameId(text, root, at('id: stage', 1, 5), 'my stage');
    if ('error' in result) expect.fail(result.error);
    const renamed = apply(text, result.edits);
    expect(renamed).toContain('id: "my stage"');
    expect(renamed).toContain('stage: !KeyOf "my stage"\n      order: 20');
  });

  it('refuses a name another entry already has', () => {
    expect(renameId(text, root, at('id: stage', 1, 5), 'flow')).toEqual({
      error: 'An entry with id "flow" already exists: !KeyOf flow would become ambiguous.',
    });
  });
});

describe('quick fixes', () => {
  const fixed = (source: string, code: string, title?: string) => {
    const problems = service.doValidation(source);
    const problem = problems.find((found) => found.code === code);
    if (!problem) expect.fail(`no ${code} in ${JSON.stringify(problems)}`);
    const fixes = quickFixes(source, problems, problem.range);
    const fix = title ? fixes.find((candidate) => candidate.title === title) : fixes[0];
    if (!fix) expect.fail(`no fix for ${code}: ${JSON.stringify(fixes.map((candidate) => candidate.title))}`);
    const result = apply(source, fix.edits);
    expect(service.doValidation(result).filter((found) => found.code === code)).toEqual([]);
    return { result, fix };
  };
  const flow = (body: string) => `version: 1\nentries:\n  - model: idp_flows.flow\n${body}`;

  it('changes a misspelt field to the suggestion', () => {
    const { result, fix } = fixed(flow('    identifiers:\n      slgu: x\n'), 'field-unknown');
    expect(fix).toMatchObject({ title: "Change to 'slug'", preferred: true });
    expect(result).toContain('      slug: x');
  });

  it('offers each suggested model', () => {
    const source = 'version: 1\nentries:\n  - model: idp_flows.flw\n    identifiers:\n      slug: x\n';
    const { result } = fixed(source, 'model-unknown', "Change to 'idp_flows.flow'");
    expect(result).toContain('model: idp_flows.flow\n');
  });

  it('lowercases a model name, quotes a label value, fixes a tag and a !KeyOf id', () => {
    fixed('version: 1\nentries:\n  - model: idp_flows.Flow\n    identifiers:\n      slug: x\n', 'model-case');
    fixed('version: 1\nmetadata:\n  name: m\n  labels:\n    a: true\nentries: []\n', 'label-not-string');
    fixed(flow('    identifiers:\n      slug: !Contxt slug\n'), 'tag-unknown');
    fixed(flow('    id: login\n    identifiers:\n      slug: x\n  - model: idp_flows.flowstagebinding\n    identifiers:\n      target: !KeyOf logni\n      order: 1\n'), 'keyof-unknown-id'); // prettier-ignore
    fixed(flow('    staet: present\n    identifiers:\n      slug: x\n'), 'entry-unknown-key');
    fixed(flow('    state: presnt\n    identifiers:\n      slug: x\n'), 'state-invalid');
  });

  it('quotes a number label as written, and an empty one', () => {
    const labels = (value: string) => `version: 1\nmetadata:\n  name: m\n  labels:\n    a:${value}\nentries: []\n`;
    expect(fixed(labels(' 1.10'), 'label-not-string').result).toBe(labels(' "1.10"'));
    expect(fixed(labels(''), 'label-not-string').result).toBe(labels(' ""'));
  });

  it('writes the exact spelling of a model the service matches exactly', () => {
    const source = 'version: 1\nentries:\n  - model: Idp_core.group\n    identifiers:\n      name: g\n';
    const { result, fix } = fixed(source, 'model-case-strict');
    expect(fix).toMatchObject({ title: "Change to 'idp_core.group'", preferred: true });
    expect(result).toContain('model: idp_core.group\n');
    const meta =
      'version: 1\nentries:\n  - model: idp_blueprints.MetaApplyBlueprint\n    attrs:\n      identifiers: {name: x}\n';
    expect(fixed(meta, 'model-case-strict').result).toContain('model: idp_blueprints.metaapplyblueprint\n');
  });

  it('unquotes a quoted number, writes version 1, drops the app of a permission', () => {
    expect(fixed(flow('    identifiers:\n      slug: x\n  - model: idp_flows.flowstagebinding\n    identifiers:\n      order: "10"\n'), 'field-number-quoted').result).toContain('      order: 10\n'); // prettier-ignore
    expect(fixed('version: 1.0\nentries: []\n', 'version-not-integer').result).toBe('version: 1\nentries: []\n');
    const permission = fixed(flow('    identifiers:\n      slug: x\n    permissions:\n      - permission: idp_core.view_flow\n'), 'permission-other-app'); // prettier-ignore
    expect(permission.fix.title).toBe("Change to 'view_flow'");
    expect(permission.result).toContain('permission: view_flow\n');
  });

  it('changes a misspelt enum value to the suggestion, keeping its quotes', () => {
    const designation = (value: string) =>
      flow(`    identifiers:\n      slug: x\n    attrs:\n      designation: ${value}\n`);
    const plain = fixed(designation('authentification'), 'field-invalid');
    expect(plain.fix).toMatchObject({ title: "Change to 'authentication'", preferred: true });
    expect(plain.result).toBe(designation('authentication'));
    expect(fixed(designation("'Authentication'"), 'field-invalid').result).toBe(designation("'authentication'"));
    expect(fixed(designation('"authentcation"'), 'field-invalid').result).toBe(designation('"authentication"'));
    const stage = (fields: string) => `version: 1\nentries:\n  - model: idp_stages_identification.identificationstage\n    identifiers:\n      name: i\n    attrs:\n      user_fields: [${fields}]\n`; // prettier-ignore
    expect(fixed(stage('email, usrname'), 'field-invalid').result).toBe(stage('email, username'));
  });

  it('offers no change for an enum value far from all the values', () => {
    const source = flow('    identifiers:\n      slug: x\n    attrs:\n      designation: zzz\n');
    const problems = service.doValidation(source);
    expect(quickFixes(source, problems, problems[0]!.range)).toEqual([]);
  });

  it('adds an empty identifiers block under the model line', () => {
    const source = flow('    attrs:\n      slug: x\n');
    const problems = service.doValidation(source);
    const missing = problems.find((found) => found.code === 'identifiers-missing')!;
    const [fix] = quickFixes(source, problems, missing.range);
    expect(fix?.title).toBe('Add an empty identifiers block');
    expect(apply(source, fix!.edits)).toBe(flow('    identifiers: {}\n    attrs:\n      slug: x\n'));
  });

  it('offers nothing outside the problem', () => {
    const source = flow('    identifiers:\n      slgu: x\n');
    expect(quickFixes(source, service.doValidation(source), [0, 5])).toEqual([]);
  });
});

describe('navigation never throws', () => {
  it('at every tenth offset of the corpus and of mutations of it', () => {
    const random = randomSource(515);
    const texts = [...corpus.map((file) => file.text), ...Array.from({ length: 60 }, () => mutate(random.pick(corpus).text, random))];
    for (const source of texts) {
      const tree = parseBlueprint(source).root;
      for (let offset = 0; offset <= source.length; offset += 10) {
        findDefinition(source, tree, offset);
        for (const range of findReferences(source, tree, offset, true)) {
          expect(range[0] >= 0 && range[1] <= source.length).toBe(true);
        }
        const rename = renameId(source, tree, offset, 'renamed');
        if ('edits' in rename) for (const edit of rename.edits) expect(edit.range[1]).toBeLessThanOrEqual(source.length);
      }
    }
  });
}); // prettier-ignore
