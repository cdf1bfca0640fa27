import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { corpus, corpusAbsent } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const valid = corpus.filter((file) => !file.name.includes('invalid'));

/**
 * The warnings the valid files get: where the schema and the service disagree (blueprints.md),
 * the service accepts the file, so a warning is right and an error would be wrong.
 */
const expectedWarnings: Record<string, string[]> = {
  // (`digits: 6` of default-flow-default-authenticator-totp-setup.yaml is an integer field: no finding.)
  // `!Find [idp_flows.Flow, ...]`: the service lowercases the model part, as for an entry's model.
  // A non-boolean `conditions` item: the service uses its truthiness.
  'fixtures-tags.yaml': ['model-case: idp_flows.Flow', 'condition-not-boolean: text'],
  // A field this release's model no longer has: the service ignores unknown fields.
  'system-sources-ldap.yaml': ['field-unknown: object_field'],
};

describe.skipIf(corpusAbsent)('schema validation of the corpus', () => {
  it.each(valid.map((file) => [file.name, file.text]))('%s has no error', (name, text) => {
    const problems = service.doValidation(text);
    expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    const warnings = problems.map((problem) => `${problem.code}: ${text.slice(...problem.range)}`);
    expect(warnings).toEqual(expectedWarnings[name] ?? []);
  });

  it('reports the version of fixtures-invalid_blueprint_version.yaml', () => {
    // version: 999; the service accepts version 1 only.
    const text = corpus.find((file) => file.name === 'fixtures-invalid_blueprint_version.yaml')!.text;
    const errors = service.doValidation(text).filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => [problem.code, text.slice(...problem.range)])).toEqual([
      ['version-unsupported', '999'],
    ]);
  });

  it('reports the email of fixtures-invalid_model_attributes.yaml', () => {
    // email: invalid-email is not an email address; the model `idp_core.User` only gets a warning.
    const text = corpus.find((file) => file.name === 'fixtures-invalid_model_attributes.yaml')!.text;
    const problems = service.doValidation(text).map((problem) => [problem.code, text.slice(...problem.range)]);
    expect(problems).toEqual([
      ['field-invalid', 'invalid-email'],
      ['model-case', 'idp_core.User'],
    ]);
  });
});
