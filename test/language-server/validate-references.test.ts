import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkReferences } from '../../language-server/src/service/checks/reference-check.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const group = (id: string, extra = '') =>
  `  - model: idp_core.group\n    id: ${id}\n${extra}    identifiers: {name: ${id}}\n`;
const user = (attrs: string) => `  - model: idp_core.user\n    identifiers: {username: u}\n    attrs:\n${attrs}`;
const blueprint = (...entries: string[]) => `version: 1\nentries:\n${entries.join('')}`;

// Each row: a blueprint with ONE mistake («» marks the range), the code and the exact message.
const mistakes: [string, string, string, string][] = [
  [
    'unknown id, with a suggestion among the ids above',
    blueprint(group('admins'), user('      groups: [«!KeyOf admin»]\n')),
    'keyof-unknown-id',
    `No entry has id "admin". Did you mean 'admins'?`,
  ],
  [
    'id defined only by a later entry',
    blueprint(user('      groups: [«!KeyOf admins»]\n'), group('admins')),
    'keyof-later-entry',
    'Entry "admins" comes later in the file; !KeyOf only sees entries above it.',
  ],
  [
    'id of the same entry',
    blueprint('  - model: idp_core.group\n    id: g\n    identifiers: {name: g}\n    attrs: {parents: [«!KeyOf g»]}\n'),
    'keyof-later-entry',
    'Entry "g" is this entry itself; !KeyOf only sees entries above it.',
  ],
  [
    'id of an entry with state: absent',
    blueprint(group('old', '    state: absent\n'), user('      groups: [«!KeyOf old»]\n')),
    'keyof-absent-entry',
    'Entry "old" has state: absent, so it creates nothing to reference.',
  ],
  [
    'id of an entry whose conditions contain false',
    blueprint(group('spare', '    conditions: [false]\n'), user('      groups: [«!KeyOf spare»]\n')),
    'keyof-skipped-entry',
    'Entry "spare" is skipped (its conditions contain a false value), so it creates nothing to reference.',
  ],
  [
    'duplicate id',
    blueprint(group('g'), '  - model: idp_core.group\n    id: «g»\n    identifiers: {name: h}\n'),
    'id-duplicate',
    'Duplicate id "g" (first at line 4): !KeyOf g refers to the first entry with this id that created an object.',
  ],
  [
    'meta model without attrs.identifiers',
    blueprint('  - «model: idp_blueprints.metaapplyblueprint»\n    attrs: {required: false}\n'),
    'attrs-identifiers-missing',
    'An entry of idp_blueprints.metaapplyblueprint has no identifiers of its own: add attrs.identifiers to say which one to use.',
  ],
  [
    'meta model without attrs',
    blueprint('  - «model: idp_blueprints.metaapplyblueprint»\n    id: m\n'),
    'attrs-identifiers-missing',
    'An entry of idp_blueprints.metaapplyblueprint has no identifiers of its own: add attrs.identifiers to say which one to use.',
  ],
  [
    'empty !KeyOf',
    blueprint(group('g'), user('      groups: [«!KeyOf»]\n')),
    'keyof-empty',
    '!KeyOf needs the id of an entry above it: !KeyOf <id>.',
  ],
  [
    '!KeyOf with a sequence (the tag checks report it)',
    blueprint(group('g'), user('      groups: «!KeyOf [g]»\n')),
    'tag-wrong-kind',
    '!KeyOf takes a scalar (!KeyOf entry-id), not a sequence.',
  ],
];

describe('reference rules: one mistake, one problem', () => {
  it.each(mistakes)('%s', (_name, source, code, message) => {
    const { text, range } = marked(source);
    const problems = service.doValidation(text);
    expect(withoutFixes(problems)).toEqual([
      { code, severity: allCodes[code as keyof typeof allCodes].severity, message, range },
    ]);
  });
});

describe('reference rules: valid counterparts', () => {
  const valid: [string, string][] = [
    ['a reference above', blueprint(group('g'), user('      groups: [!KeyOf g]\n'))],
    [
      'a reference across named groups in order',
      `version: 1\nentries:\n  first:\n  ${group('g').replaceAll('\n  ', '\n    ')}  second:\n  ${user(
        '      groups: [!KeyOf g]\n',
      ).replaceAll('\n  ', '\n    ')}`,
    ],
    ['a reference inside !Format', blueprint(group('g'), user('      name: !Format ["%s-x", !KeyOf g]\n'))],
    ['a reference inside !If', blueprint(group('g'), user('      groups: !If [true, [!KeyOf g], []]\n'))],
    [
      'a duplicate of an absent entry followed by one that creates',
      blueprint(
        group('g', '    state: absent\n'),
        user('      name: x\n'),
        '  - model: idp_core.group\n    id: g\n    identifiers: {name: h}\n',
      ),
    ],
    [
      'computed conditions are not judged',
      blueprint(group('g', '    conditions: [!Context enabled]\n'), user('      groups: [!KeyOf g]\n')),
    ],
    [
      'an id made by a tag may be any id',
      blueprint(
        '  - model: idp_core.group\n    id: !Context gid\n    identifiers: {name: g}\n',
        user('      groups: [!KeyOf g]\n'),
      ),
    ],
    [
      'the meta model with attrs.identifiers, or computed attrs',
      blueprint(
        '  - model: idp_blueprints.metaapplyblueprint\n    attrs:\n      identifiers: {name: x}\n',
        '  - model: idp_blueprints.metaapplyblueprint\n    attrs: !Context meta\n',
      ),
    ],
  ];
  it.each(valid)('%s', (_name, text) => {
    expect(service.doValidation(text)).toEqual([]);
  });
});

describe('checkReferences', () => {
  it('works on a tree alone (no index, no text: no line numbers)', () => {
    const text = blueprint(group('g'), group('g'));
    const problems = checkReferences(parseBlueprint(text).root);
    expect(problems.map((problem) => [problem.code, problem.message])).toEqual([
      ['id-duplicate', 'Duplicate id "g": !KeyOf g refers to the first entry with this id that created an object.'],
    ]);
    expect(checkReferences(undefined)).toEqual([]);
  });
});
