import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as {
  definitions: Record<string, { properties?: Record<string, { type?: unknown }> }>;
};
const service = createLanguageService({ schema });

const entry = (model: string, identifiers: string, attrs: string) =>
  `version: 1\nentries:\n  - model: ${model}\n    identifiers:\n${identifiers}\n    attrs:\n${attrs}`;
const identification = (attrs: string) =>
  entry(
    'idp_stages_identification.identificationstage',
    '      name: identify',
    `      user_fields: [email]\n${attrs}`,
  );
const totp = (attrs: string) => entry('idp_stages_authenticator_totp.authenticatortotpstage', '      name: t', attrs);
const stageBinding = (attrs: string) =>
  entry('idp_flows.flowstagebinding', '      order: 10', `      stage: 9b2e1f4c-0d9a-4a57-9c4e-0e8a4f1a2b3c\n${attrs}`);

/** Whether a field's schema lets it be null. */
const nullable = (field: { type?: unknown }): boolean => [field.type].flat().includes('null');

/**
 * A blueprint as the service exports it: every model once, identified by `pk`, every field its
 * schema lets be null written as null (the empty references of an exported object).
 */
function exportedStyleBlueprint(): string {
  const lines = ['version: 1', 'metadata:', '  name: every model, references null', 'entries:'];
  for (const [name, definition] of Object.entries(schema.definitions)) {
    if (!name.startsWith('entry_')) continue;
    const model = name.slice('entry_'.length);
    const fields = Object.entries(schema.definitions[`model_${model}`]?.properties ?? {});
    lines.push(`  - model: ${model}`, '    state: present');
    const withoutIdentifiers = !('identifiers' in ((definition as { properties: object }).properties ?? {}));
    if (withoutIdentifiers) {
      lines.push('    attrs:', '      identifiers:', '        name: elsewhere');
      continue;
    }
    lines.push('    identifiers:', '      pk: 1');
    const nulls = fields.filter(([, field]) => nullable(field)).map(([field]) => `      ${field}: null`);
    if (nulls.length > 0) lines.push('    attrs:', ...nulls);
  }
  return `${lines.join('\n')}\n`;
}

describe('fields the service lets be null, beyond the release schema', () => {
  it('an exported-style file of every model with every nullable field null has no finding', () => {
    const text = exportedStyleBlueprint();
    expect(text.match(/^ {2}- model:/gm)).toHaveLength(116);
    // The file does exercise the references: a binding's group and user, an identification stage's captcha.
    expect(text).toMatch(
      /model: idp_policies\.policybinding\n.*\n.*\n.*\n.*\n\s+policy: null\n\s+group: null\n\s+user: null/,
    );
    expect(text).toMatch(/captcha_stage: null/);
    expect(service.doValidation(text)).toEqual([]);
  });

  // A mistake on its line with its severity, and the corrected twin with no finding.
  const cases: [name: string, mistake: string, code: string, message: string, twin: string][] = [
    [
      'a reference the service requires, written null',
      stageBinding('      target: «null»'),
      'field-invalid',
      'target must be a string.',
      stageBinding('      target: 0c7a1b1e-5d3f-4a57-9c4e-0e8a4f1a2b3c'),
    ],
    [
      'a captcha stage that is neither a UUID nor null',
      identification('      captcha_stage: «none»'),
      'field-invalid',
      'captcha_stage must be a UUID.',
      identification('      captcha_stage: null'),
    ],
    [
      'TOTP digits outside the choices',
      totp('      digits: «7»'),
      'field-invalid',
      'digits must be one of: 6, 8.',
      totp('      digits: 6'),
    ],
  ];
  it.each(cases)('%s', (_name, mistake, code, message, twin) => {
    const { text, range } = marked(mistake);
    expect(withoutFixes(service.doValidation(text))).toEqual([{ code, severity: 'error', message, range }]);
    expect(service.doValidation(twin)).toEqual([]);
  });

  it.each([
    ['digits: 6', '      digits: 6'],
    ["digits: '6'", "      digits: '6'"],
    ['digits: 8', '      digits: 8'],
    ['digits: "8"', '      digits: "8"'],
  ])('TOTP %s: the service compares the choices as strings, so no finding', (_name, attrs) => {
    expect(service.doValidation(totp(attrs))).toEqual([]);
  });
});
