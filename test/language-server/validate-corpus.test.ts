import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { corpus } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const valid = corpus.filter((file) => !file.name.includes('invalid'));
const invalid = corpus.filter((file) => file.name.includes('invalid'));

/** Each problem as `code: the text it points at`, in the order the service reports them. */
function findings(text: string): string[] {
  return service.doValidation(text).map((problem) => `${problem.code}: ${text.slice(...problem.range)}`);
}

/**
 * The warnings the valid files get: where the schema and the service disagree, the service
 * accepts the file, so a warning is right and an error would be wrong.
 */
const expectedWarnings: Record<string, string[]> = {
  // A port written "587": the service converts the text to the number.
  'flow-enrollment-by-invitation.yaml': ['field-number-quoted: "587"'],
  // `!Find [idp_flows.Flow, ...]`: the service lowercases the model part, as for an entry's model.
  // A conditions item `enabled`: the service uses its truthiness.
  'tags-every-kind.yaml': ['model-case: idp_flows.Flow', 'condition-not-boolean: enabled'],
  // (`digits: 8` of flow-mfa-setup.yaml: the service compares the choices as strings, no finding.)
};

/** Every finding of the invalid files: one per deliberate mistake. */
const expectedFindings: Record<string, string[]> = {
  // Only version 1 exists; the entries are not checked against a format the file does not use.
  'invalid-version.yaml': ['version-unsupported: 2'],
  'invalid-field-values.yaml': [
    // The app label matches; the service lowercases the model part, so only a warning.
    'model-case: idp_core.User',
    'field-invalid: temp-at-kestrel.example',
    'field-invalid: authentification',
    'field-invalid: 120',
    'field-invalid: first',
    'field-invalid: kestrel kiosk token',
    'field-invalid: maybe',
  ],
  // Values and combinations the service's validators refuse; the export-* files hold their twins.
  'invalid-service-rules.yaml': [
    'field-invalid: 12h',
    'field-invalid: kestrel.wiki',
    'field-invalid: /users/kestrel',
    'field-combination: group',
    'field-combination: configure',
    'field-invalid: null',
  ],
  'invalid-references.yaml': [
    'keyof-later-entry: !KeyOf night-flow',
    'keyof-unknown-id: !KeyOf night-stage',
    'keyof-absent-entry: !KeyOf retired-stage',
    'keyof-unknown-id: !KeyOf day-stage',
    'state-invalid: archived',
    'permission-unknown: approve_group',
    'identifiers-missing: model: idp_core.user',
    'identifiers-missing: model: idp_stages_user_login.userloginstage',
    'entry-unknown-key: identifier',
    'model-unknown: idp_stages_user_logout.logoutstage',
  ],
};

describe('schema validation of the blueprint fixtures', () => {
  it('has valid and invalid files, and a finding list for every invalid one', () => {
    expect(valid.length).toBeGreaterThanOrEqual(10);
    expect(invalid.map((file) => file.name)).toEqual(Object.keys(expectedFindings).sort());
    for (const name of Object.keys(expectedWarnings)) expect(valid.map((file) => file.name)).toContain(name);
  });

  it.each(valid.map((file) => [file.name, file.text]))('%s has no error, only its known warnings', (name, text) => {
    const problems = service.doValidation(text);
    expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(findings(text)).toEqual(expectedWarnings[name] ?? []);
  });

  // Files in the shape of the service's export (null for every empty reference, every field written).
  const exported = valid.filter((file) => file.name.startsWith('export-'));
  it.each(exported.map((file) => [file.name, file.text]))('%s, exported style, has no finding above information', (_name, text) => {
    expect(text).toMatch(/: null$/m);
    expect(service.doValidation(text).filter((problem) => problem.severity !== 'information')).toEqual([]);
  }); // prettier-ignore

  it('has exported-style files', () => {
    expect(exported.length).toBeGreaterThanOrEqual(3);
  });

  it.each(invalid.map((file) => [file.name, file.text]))('%s gets exactly its findings', (name, text) => {
    expect(findings(text)).toEqual(expectedFindings[name]);
    const errors = service.doValidation(text).filter((problem) => problem.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
  });
});
