import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as {
  definitions: Record<string, { properties?: Record<string, unknown> }>;
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

type FieldSchema = { type?: unknown; enum?: unknown[]; format?: string; items?: FieldSchema; 'x-rule'?: { example: string } }; // prettier-ignore
type Rule = Partial<Record<'exactly_one_of' | 'at_least_one_of' | 'requires' | 'requires_keys', string[]>> & {
  when?: Record<string, unknown[]>;
  defaults?: Record<string, unknown>;
  when_set?: string;
};

/** Whether a field's schema lets it be null. */
const nullable = (field: FieldSchema): boolean => [field.type].flat().includes('null');

/** A value a field accepts, written as YAML. */
function sample(field: FieldSchema): string {
  const choices = field.enum?.filter((value) => value !== null);
  if (choices?.length) return JSON.stringify(choices[0]);
  const type = [field.type].flat().find((name) => name !== 'null');
  if (type === 'array') return `[${sample(field.items ?? {})}]`;
  if (type === 'integer' || type === 'number') return '1';
  if (field.format === 'uuid') return '9b2e1f4c-0d9a-4a57-9c4e-0e8a4f1a2b3c';
  return JSON.stringify(field['x-rule']?.example ?? 'x');
}

/**
 * The fields an exported object of the model has set although they may be null: those its
 * cross-field rules want where they apply to an entry that leaves the other fields null or out
 * (a binding's one subject, an identification stage's user fields, a proxy's upstream).
 */
function keptByRules(rules: readonly Rule[]): string[] {
  return rules.flatMap((rule) => {
    // A field the condition wants set is null or left out here; a `when` holds only by a default.
    const conditionHolds =
      rule.when_set === undefined &&
      Object.entries(rule.when ?? {}).every(([field, values]) => values.includes(rule.defaults?.[field]));
    if (!conditionHolds) return [];
    return rule.requires ?? rule.requires_keys ?? (rule.exactly_one_of ?? rule.at_least_one_of ?? []).slice(0, 1);
  });
}

/**
 * A blueprint as the service exports it: every model once, identified by `pk`, every field its
 * schema lets be null written as null (the empty references of an exported object), except what a
 * cross-field rule of the model needs set.
 */
function exportedStyleBlueprint(): string {
  const lines = ['version: 1', 'metadata:', '  name: every model, references null', 'entries:'];
  for (const [name, definition] of Object.entries(schema.definitions)) {
    if (!name.startsWith('entry_')) continue;
    const model = name.slice('entry_'.length);
    const entry = definition as { properties: object; 'x-cross-field-rules'?: Rule[] };
    const fields = new Map(Object.entries(schema.definitions[`model_${model}`]?.properties ?? {}) as [string, FieldSchema][]); // prettier-ignore
    lines.push(`  - model: ${model}`, '    state: present');
    if (!('identifiers' in entry.properties)) {
      lines.push('    attrs:', '      identifiers:', '        name: elsewhere');
      continue;
    }
    lines.push('    identifiers:', '      pk: 1');
    const nulls = new Set([...fields].filter(([, field]) => nullable(field)).map(([field]) => field));
    const kept = keptByRules(entry['x-cross-field-rules'] ?? []);
    const attrs = [...new Set([...nulls, ...kept])].map(
      (field) => `      ${field}: ${kept.includes(field) ? sample(fields.get(field)!) : 'null'}`,
    );
    if (attrs.length > 0) lines.push('    attrs:', ...attrs);
  }
  return `${lines.join('\n')}\n`;
}

describe('fields the service lets be null, beyond the release schema', () => {
  it('an exported-style file of every model with every nullable field null has no finding', () => {
    const text = exportedStyleBlueprint();
    expect(text.match(/^ {2}- model:/gm)).toHaveLength(116);
    // The file does exercise the references: a binding's group and user, an identification stage's captcha.
    const binding = text.split('  - model: ').find((entry) => entry.startsWith('idp_policies.policybinding\n'));
    expect(binding).toMatch(/\n {6}policy: \S+\n {6}group: null\n {6}user: null\n/);
    expect(text).toMatch(/captcha_stage: null/);
    expect(service.doValidation(text)).toEqual([]);
  });

  // A mistake on its line with its severity, and the corrected twin with no finding.
  const cases: [name: string, mistake: string, code: string, message: string, twin: string][] = [
    [
      'a reference the service requires, written null',
      stageBinding('      target: «null»'),
      'field-invalid',
      'target must not be null: the service requires a value here.',
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
