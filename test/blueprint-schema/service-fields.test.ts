import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import { SCHEMA_SOURCE_DIR, generateBlueprintSchemaText } from '../../scripts/blueprint-schema/generate.ts';
import { sourceCopy } from './source-copy.ts';

type Definitions = Record<string, { properties: Record<string, Record<string, unknown>> }>;

const source = loadBlueprintSource(SCHEMA_SOURCE_DIR);
const { definitions } = JSON.parse(generateBlueprintSchemaText()) as { definitions: Definitions };
const field = (model: string, name: string) => definitions[`model_${model}`]!.properties[name]!;

describe('service-fields.yaml in the generated schema', () => {
  it('lets every listed reference be null, keeping its format and references', () => {
    expect(field('idp_stages_identification.identificationstage', 'captcha_stage')).toMatchObject({
      type: ['string', 'null'],
      format: 'uuid',
      'x-references': ['idp_stages_captcha.captchastage'],
    });
    expect(field('idp_policies.policybinding', 'user')).toMatchObject({ type: ['integer', 'null'] });
    for (const [model, fields] of source.serviceFields.nullable) {
      for (const name of fields.keys()) expect([field(model, name).type].flat(), `${model}.${name}`).toContain('null');
    }
  });

  it('leaves a reference the service requires as the release has it', () => {
    expect(field('idp_flows.flowstagebinding', 'target').type).toBe('string');
    expect(field('idp_policies.policybinding', 'target').type).toBe('string');
  });

  it('lets a choice compared as a string be the number too', () => {
    expect(field('idp_stages_authenticator_totp.authenticatortotpstage', 'digits')).toMatchObject({
      type: ['string', 'integer'],
      enum: ['6', '8', 6, 8],
    });
  });

  it('gives every deviation a reason the file explains', () => {
    const used = [...source.serviceFields.nullable.values(), ...source.serviceFields.stringChoices.values()].flatMap(
      (fields) => [...fields.values()],
    );
    expect([...new Set(used)].sort()).toEqual([...source.serviceFields.reasons.keys()].sort());
  });
});

describe('a bad service-fields.yaml', () => {
  const { directory, write } = sourceCopy();
  const reasons = 'reasons:\n  fk-null: a nullable foreign key\n';
  const generateWith = (text: string) => () => {
    write('service-fields.yaml', reasons + text);
    return generateBlueprintSchemaText(directory);
  };

  it.each([
    [
      'a model models.yaml does not have',
      'nullable:\n  idp_flows.flw:\n    target: fk-null\n',
      'service-fields.yaml: nullable.idp_flows.flw: no such model in models.yaml',
    ],
    [
      'a field the model does not have',
      'nullable:\n  idp_flows.flowstagebinding:\n    targt: fk-null\n',
      'service-fields.yaml: nullable.idp_flows.flowstagebinding.targt: idp_flows.flowstagebinding has no field "targt"',
    ],
    [
      'a reason not explained',
      'nullable:\n  idp_flows.flowstagebinding:\n    target: because\n',
      'service-fields.yaml: nullable.idp_flows.flowstagebinding.target: unknown reason "because" (known: fk-null)',
    ],
    [
      'a field models.yaml already makes nullable',
      'nullable:\n  idp_core.token:\n    expires: fk-null\n',
      'service-fields.yaml: nullable.idp_core.token.expires: already nullable in models.yaml',
    ],
    [
      'string choices on a field that is no enum of numbers',
      'string_choices:\n  idp_flows.flow:\n    designation: fk-null\n',
      'service-fields.yaml: string_choices.idp_flows.flow.designation: expected a string enum whose values are all numbers',
    ],
  ])('stops the generator on %s', (_case, text, message) => {
    expect(generateWith(text)).toThrow(message);
  });

  it('generates the committed schema from the committed file', () => {
    write('service-fields.yaml', readFileSync(path.join(SCHEMA_SOURCE_DIR, 'service-fields.yaml'), 'utf8'));
    expect(generateBlueprintSchemaText(directory)).toBe(generateBlueprintSchemaText());
  });
});
