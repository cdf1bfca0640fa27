import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const user = (rest: string) =>
  `version: 1\nentries:\n  - model: idp_core.user\n    identifiers:\n      username: a\n${rest}`;
const entry = (model: string, body: string) => `version: 1\nentries:\n  - model: ${model}\n${body}`;
const staticStage = (attrs: string) =>
  entry(
    'idp_stages_authenticator_static.authenticatorstaticstage',
    `    identifiers:\n      name: s\n    attrs:\n${attrs}`,
  );
const totp = (attrs: string) =>
  entry(
    'idp_stages_authenticator_totp.authenticatortotpstage',
    `    identifiers:\n      name: t\n    attrs:\n${attrs}`,
  );
const flowPermission = (item: string) =>
  entry('idp_flows.flow', `    identifiers:\n      slug: f\n    permissions:\n      - ${item}`);

// Each row: a blueprint with ONE mistake («» marks the range), the code and the exact message.
const mistakes: [string, string, string, string][] = [
  [
    'root not a mapping',
    '«- model: idp_flows.flow»',
    'root-not-map',
    'A blueprint must be a mapping with version, entries and optionally metadata and context.',
  ],
  ['an unknown YAML directive', '«%FOO bar»\n---\nversion: 1\nentries: []', 'yaml-warning', 'Unknown directive %FOO'],
  [
    'unknown top-level key',
    'version: 1\nentries: []\n«contxt»: {}',
    'top-unknown-key',
    "Unknown top-level key 'contxt'. Did you mean 'context'?",
  ],
  ['version missing', '«entries»: []', 'version-missing', 'The blueprint has no version: add version: 1.'],
  [
    'version a string',
    'version: «"1"»\nentries: []',
    'version-not-integer',
    'version must be a whole number: write version: 1.',
  ],
  [
    'version 2',
    'version: «2»\nentries: []',
    'version-unsupported',
    'version 2 is not supported: the service accepts version 1 only.',
  ],
  ['entries missing', '«version»: 1', 'entries-missing', 'The blueprint has no entries.'],
  [
    'entries a scalar',
    'version: 1\nentries: «foo»',
    'entries-invalid',
    'entries must be a sequence of entries, or a mapping of named groups (each a sequence of entries).',
  ],
  [
    'group not a sequence',
    'version: 1\nentries:\n  g: «foo»',
    'entries-invalid',
    "The group 'g' must be a sequence of entries.",
  ],
  [
    'metadata a scalar',
    'version: 1\nmetadata: «x»\nentries: []',
    'metadata-invalid',
    'metadata must be a mapping with name (and optionally labels).',
  ],
  [
    'metadata without name',
    'version: 1\n«metadata»:\n  labels: {}\nentries: []',
    'metadata-name-missing',
    'metadata needs a name.',
  ],
  [
    'label not a string',
    'version: 1\nmetadata:\n  name: x\n  labels:\n    a: «true»\nentries: []',
    'label-not-string',
    'Label values must be strings: quote it: "true".',
  ],
  [
    'entry a scalar',
    'version: 1\nentries:\n  - «foo»',
    'entry-not-map',
    'An entry must be a mapping with at least model (and identifiers).',
  ],
  [
    'model missing',
    'version: 1\nentries:\n  - «identifiers»:\n      name: x',
    'model-missing',
    'This entry has no model: add model: <app>.<model>.',
  ],
  [
    'model misspelt',
    entry('«idp_core.usr»', '    identifiers:\n      username: a'),
    'model-unknown',
    "Unknown model 'idp_core.usr'. Did you mean 'idp_core.user'?",
  ],
  [
    'model case',
    entry('«idp_core.User»', '    identifiers:\n      username: a'),
    'model-case',
    'model names are lowercase: idp_core.user.',
  ],
  [
    'unknown entry key',
    user('    «atrs»: {}'),
    'entry-unknown-key',
    "An entry of idp_core.user has no key 'atrs'. Did you mean 'attrs'?",
  ],
  [
    'state misspelt',
    user('    state: «presnt»'),
    'state-invalid',
    "state must be one of: absent, created, must_created, present. Did you mean 'present'?",
  ],
  [
    'conditions a scalar',
    user('    conditions: «true»'),
    'conditions-not-sequence',
    'conditions must be a sequence (every item must be true for the entry to apply).',
  ],
  [
    'condition literal',
    user('    conditions:\n      - «text»'),
    'condition-not-boolean',
    "conditions items should be true or false (or a tag such as !Condition); the service uses the truthiness of 'text'.",
  ],
  [
    'identifiers missing',
    'version: 1\nentries:\n  - «model: idp_core.user»\n    attrs:\n      name: a',
    'identifiers-missing',
    'An entry of idp_core.user needs identifiers: the fields that find the existing object.',
  ],
  [
    'identifiers empty',
    entry('idp_core.user', '    identifiers: «{}»'),
    'identifiers-empty',
    'identifiers must not be empty: give at least one field that finds the object.',
  ],
  [
    'identifiers on the meta model',
    entry(
      'idp_blueprints.metaapplyblueprint',
      '    «identifiers»:\n      name: x\n    attrs:\n      identifiers: {name: x}',
    ),
    'entry-unknown-key',
    "An entry of idp_blueprints.metaapplyblueprint has no key 'identifiers'.",
  ],
  [
    'field above maximum',
    staticStage('      token_length: «101»'),
    'field-invalid',
    'token_length must be at most 100.',
  ],
  [
    'field wrong type',
    staticStage('      token_count: «many»'),
    'field-invalid',
    'token_count must be a whole number.',
  ],
  ['field not in enum', totp('      digits: «"7"»'), 'field-invalid', 'digits must be one of: 6, 8.'],
  [
    'number for a string enum',
    totp('      digits: «6»'),
    'field-enum-coerced',
    'digits is written as the number 6; the schema lists strings. Quote it ("6"); the service converts it.',
  ],
  ['field format', totp('      configure_flow: «not-a-uuid»'), 'field-invalid', 'configure_flow must be a UUID.'],
  ['field empty', user('    attrs:\n      username: «""»'), 'field-invalid', 'username must not be empty.'],
  [
    'nested item format',
    user('    attrs:\n      groups:\n        - «nope»'),
    'field-invalid',
    'groups[0] must be a UUID.',
  ],
  [
    'unknown field',
    staticStage('      «token_lenght»: 5'),
    'field-unknown',
    "idp_stages_authenticator_static.authenticatorstaticstage has no field 'token_lenght'; the service ignores it. Did you mean 'token_length'?",
  ],
  [
    'permission misspelt',
    flowPermission('permission: «view_flw»'),
    'permission-unknown',
    "idp_flows.flow has no permission 'view_flw'. Did you mean 'view_flow'?",
  ],
  [
    'permission of another app',
    flowPermission('permission: «idp_core.view_flow»'),
    'permission-unknown',
    "'idp_core.view_flow' names the app idp_core, but this entry is a idp_flows.flow: write 'view_flow' or 'idp_flows.view_flow'.",
  ],
  [
    'permission user not an integer',
    flowPermission('permission: view_flow\n        user: «abc»'),
    'permissions-invalid',
    'user must be a whole number.',
  ],
  [
    'permission missing',
    flowPermission('«role»: x'),
    'permissions-invalid',
    'This permissions item has no permission: add permission: <codename>.',
  ],
  [
    'permissions a mapping',
    entry('idp_flows.flow', '    identifiers:\n      slug: f\n    permissions: «{permission: view_flow}»'),
    'permissions-invalid',
    'permissions must be a sequence of items like {permission: <codename>, user: <pk>}.',
  ],
];

describe('validation rules: one mistake, one problem', () => {
  it.each(mistakes)('%s', (_name, source, code, message) => {
    const { text, range } = marked(source);
    const problems = service.doValidation(text);
    expect(withoutFixes(problems)).toEqual([
      { code, severity: allCodes[code as keyof typeof allCodes].severity, message, range },
    ]);
  });
});

describe('valid counterparts: no problem', () => {
  const valid: [string, string][] = [
    [
      'a full blueprint',
      `version: 1
metadata:
  name: x
  labels:
    a: "true"
    b: !Env [LABEL, x]
context: {anything: [1, 2]}
entries:
  - model: idp_core.group
    id: g
    identifiers: {name: g}
  - model: idp_flows.flow
    id: flow
    identifiers: {slug: f}
  - model: idp_core.user
    id: u
    state: present
    conditions: [true, !Condition [AND, !Context a]]
    identifiers:
      username: a
    attrs:
      email: a@example.org
      groups: [!KeyOf g, 9b2e1f4c-0d9a-4a57-9c4e-0e8a4f1a2b3c]
  - model: idp_stages_authenticator_totp.authenticatortotpstage
    identifiers: {name: t}
    attrs: {digits: "6", configure_flow: !KeyOf flow}
  - model: idp_stages_authenticator_static.authenticatorstaticstage
    identifiers: {name: s}
    attrs: {token_length: !Context length, token_count: 3}
  - model: idp_blueprints.metaapplyblueprint
    attrs:
      identifiers: {path: x.yaml}
`,
    ],
    [
      'named groups and permissions',
      `version: 1
entries:
  first:
    - model: idp_core.user
      id: u
      identifiers: {username: u}
    - model: idp_flows.flow
      identifiers: {slug: f}
      permissions:
        - {permission: view_flow, role: r}
        - {permission: idp_flows.view_flow, user: !KeyOf u}
  second: !Enumerate [!Context list, SEQ, {}]
`,
    ],
    [
      'tagged entries and attrs',
      `version: 1
entries:
  - !If [true, {}, {}]
  - model: !Context model
    identifiers: {x: 1}
  - model: idp_core.user
    identifiers: !Context ids
    attrs: !ParseJSON '{"a": 1}'
`,
    ],
  ];
  it.each(valid)('%s', (_name, text) => {
    expect(service.doValidation(text)).toEqual([]);
  });
});

describe('doValidation', () => {
  it('sorts problems by start offset and combines parser, tag and schema problems', () => {
    const text = 'version: 2\nentries:\n  - model: idp_core.usr\n    identifiers: {a: !Foo x}\n';
    const codes = service.doValidation(text).map((problem) => problem.code);
    expect(codes).toEqual(['version-unsupported', 'model-unknown', 'tag-unknown']);
  });

  it('reports an unknown model with up to 3 suggestions', () => {
    const found = service.index.lookupModel('idp_core.groupp');
    expect(found.model).toBeUndefined();
    expect(found.model ? [] : found.suggestions.length).toBeLessThanOrEqual(3);
    expect(found.model ? [] : found.suggestions).toContain('idp_core.group');
  });
});
