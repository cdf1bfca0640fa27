import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';
import { marked, withoutFixes, withStringDigits } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object;
const service = createLanguageService({ schema });

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
    'version a float',
    'version: «1.0»\nentries: []',
    'version-not-integer',
    'version must be an integer, not 1.0: write version: 1.',
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
    'label a number',
    'version: 1\nmetadata:\n  name: x\n  labels:\n    a: «1.10»\nentries: []',
    'label-not-string',
    'Label values must be strings: quote it: "1.10".',
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
    'app label case',
    entry('«Idp_core.group»', '    identifiers:\n      name: g'),
    'model-case-strict',
    "'Idp_core.group' is not found: the app label is case-sensitive. Write idp_core.group.",
  ],
  [
    'meta model case',
    entry('«idp_blueprints.MetaApplyBlueprint»', '    attrs:\n      identifiers: {name: x}'),
    'model-case-strict',
    "'idp_blueprints.MetaApplyBlueprint' is not found: the model name is case-sensitive. Write idp_blueprints.metaapplyblueprint.",
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
    'enum value misspelt',
    entry('idp_flows.flow', '    identifiers:\n      slug: f\n    attrs:\n      designation: «authentification»'),
    'field-invalid',
    "'authentification' is not one of the values of designation. Did you mean 'authentication'?",
  ],
  [
    'enum value in another case',
    entry('idp_flows.flow', '    identifiers:\n      slug: f\n    attrs:\n      designation: «"Authentication"»'),
    'field-invalid',
    "'Authentication' is not one of the values of designation. Did you mean 'authentication'?",
  ],
  [
    'enum value far from all of a long enum',
    entry('idp_events.event', '    identifiers:\n      action: «nothing_like_it»'),
    'field-invalid',
    'action must be one of: login, login_failed, logout, user_write, suspicious_request, ... (28 values; hover for all).',
  ],
  [
    'enum item of a list misspelt',
    entry(
      'idp_stages_identification.identificationstage',
      '    identifiers:\n      name: i\n    attrs:\n      user_fields: [email, «usrname»]',
    ),
    'field-invalid',
    "'usrname' is not one of the values of user_fields[1]. Did you mean 'username'?",
  ],
  [
    'enum item of a list far from all',
    entry(
      'idp_stages_identification.identificationstage',
      '    identifiers:\n      name: i\n    attrs:\n      user_fields: [«phone»]',
    ),
    'field-invalid',
    'user_fields[0] must be one of: email, username, upn.',
  ],
  [
    'quoted number for an integer field',
    entry('idp_flows.flowstagebinding', '    identifiers:\n      order: «"10"»'),
    'field-number-quoted',
    'order is written as the string "10"; the schema wants a number. Write 10 unquoted; the service converts it.',
  ],
  [
    'quoted number above maximum',
    staticStage('      token_length: «"101"»'),
    'field-invalid',
    'token_length must be at most 100.',
  ],
  [
    'quoted fraction for an integer field',
    staticStage('      token_count: «"2.5"»'),
    'field-invalid',
    'token_count must be a whole number.',
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
    'permission-other-app',
    "'idp_core.view_flow' names the app idp_core, not idp_flows; the service uses only the codename. Write 'view_flow'.",
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
    identifiers: {pk: 9b2e1f4c-0d9a-4a57-9c4e-0e8a4f1a2b3c, name: g}
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
    attrs: {digits: 6, configure_flow: !KeyOf flow}
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

describe('severity as the identity service decides', () => {
  // What the service does with each: refuses the file or entry (error), or accepts it (warning).
  const cases: [string, string, string, 'error' | 'warning'][] = [
    ['a boolean label value: refused on load', 'version: 1\nmetadata:\n  name: x\n  labels:\n    a: true\nentries: []', 'label-not-string', 'error'],
    ['a case slip in the app label: no such app', entry('IDP_core.group', '    identifiers: {name: g}'), 'model-case-strict', 'error'],
    ['a case slip in the meta model: no such model', entry('idp_blueprints.metaApplyBlueprint', '    attrs: {identifiers: {name: x}}'), 'model-case-strict', 'error'],
    ['a case slip in the model part: lowercased', entry('idp_core.GROUP', '    identifiers: {name: g}'), 'model-case', 'warning'],
    ['a quoted integer: converted', staticStage('      token_count: "3"'), 'field-number-quoted', 'warning'],
    ["another app's permission: granted by codename", flowPermission('permission: idp_core.view_flow'), 'permission-other-app', 'warning'],
    ['version 1.0: refused (not an int)', 'version: 1.0\nentries: []', 'version-not-integer', 'error'],
  ];
  it.each(cases)('%s', (_name, text, code, severity) => {
    expect(service.doValidation(text).map((found) => [found.code, found.severity])).toEqual([[code, severity]]);
  });

  const silent: [string, string][] = [
    ['pk in identifiers: the service finds the object by it', entry('idp_core.group', '    identifiers:\n      pk: 9b2e1f4c-0d9a-4a57-9c4e-0e8a4f1a2b3c')],
    ['pk beside other identifiers', user('    attrs:\n      name: a').replace('username: a', 'pk: 7\n      username: a')],
    ['digits: 6 on the TOTP stage: the service compares its choices as strings', totp('      digits: 6')],
    ['digits: "8" on the TOTP stage', totp('      digits: "8"')],
    ["a permission qualified with the entry's own app", flowPermission('permission: idp_flows.view_flow')],
  ];
  it.each(silent)('no finding: %s', (_name, text) => {
    expect(service.doValidation(text)).toEqual([]);
  });

  it('still reports pk in attrs, where the service ignores it', () => {
    const text = user('    attrs:\n      pk: 7');
    expect(service.doValidation(text).map((found) => [found.code, found.severity])).toEqual([['field-unknown', 'warning']]);
  });
}); // prettier-ignore

describe("a string enum of number-like values (the release schema's digits)", () => {
  const release = createLanguageService({ schema: withStringDigits(schema) });

  it('warns on a number: the service converts it', () => {
    const { text, range } = marked(totp('      digits: «6»'));
    expect(withoutFixes(release.doValidation(text))).toEqual([
      {
        code: 'field-enum-coerced',
        severity: 'warning',
        message:
          'digits is written as the number 6; the schema lists strings. Quote it ("6"); the service converts it.',
        range,
      },
    ]);
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
