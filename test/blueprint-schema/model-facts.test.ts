import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateBlueprintSchemaText } from '../../scripts/blueprint-schema/generate.ts';

/** Field facts of the release, shared with the team outside the repository (absent on some machines). */
const FACTS_FILE = fileURLToPath(new URL('../../../shared/reference/blueprint-models.json', import.meta.url));
const factsAbsent = !existsSync(FACTS_FILE);
if (factsAbsent) console.warn(`model-facts tests skipped: ${FACTS_FILE} is absent`);

interface Facts {
  model_order: string[];
  models: Record<
    string,
    { identifiers_required: boolean; fields: Record<string, unknown>; permission_codenames: string[] }
  >;
}

/**
 * Where the release's schema is wrong about the service, the schema says what the service does
 * (schemas/source/models.yaml gives the reason next to the field).
 */
const deviations: Record<string, unknown> = {
  // An integer field with choices in the service; the release's schema lists the strings "6", "8".
  'idp_stages_authenticator_totp.authenticatortotpstage.digits': { type: 'integer', enum: [6, 8] },
  // The facts are of 2025.12.0; the patch release 2025.12.4 no longer accepts `other`.
  'idp_sources_kerberos.kerberossource.kadmin_type': { type: 'string', enum: ['MIT', 'Heimdal'] },
};

type Definitions = Record<string, { properties: Record<string, Record<string, unknown>>; required: string[] }>;

/**
 * A field schema without descriptions and references (annotations the facts do not carry), with
 * nullable type arrays in one order.
 */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key]) => key !== 'description' && key !== 'x-references')
    .map(([key, item]) => {
      if (key === 'type' && Array.isArray(item)) return [key, [...item].sort()];
      if (key === 'properties') return [key, comparableProperties(item as Record<string, unknown>)];
      return [key, comparable(item)];
    });
  return Object.fromEntries(entries);
}

/** `properties` maps names to schemas: keep every name, even one called "description". */
function comparableProperties(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, comparable(schema)]));
}

describe.skipIf(factsAbsent)('the schema keeps the facts of blueprint-models.json', () => {
  const facts = (factsAbsent ? { model_order: [], models: {} } : JSON.parse(readFileSync(FACTS_FILE, 'utf8'))) as Facts;
  // Parsed from the generated text, as a consumer sees it (integer bounds beyond 2^53 included).
  const schema = JSON.parse(generateBlueprintSchemaText()) as { definitions: Definitions & Record<string, unknown> };
  const definitions = schema.definitions;
  const branches = (definitions.blueprint_entry as unknown as { oneOf: Array<{ $ref: string }> }).oneOf;

  it('has the 116 models, in release order', () => {
    expect(facts.model_order).toHaveLength(116);
    expect(branches.map((branch) => branch.$ref)).toEqual(
      facts.model_order.map((model) => `#/definitions/entry_${model}`),
    );
  });

  it.each(facts.model_order)('%s: fields, permissions and identifiers', (model) => {
    const fact = facts.models[model]!;
    const fields = definitions[`model_${model}`]!;
    expect(Object.keys(fields.properties)).toEqual(Object.keys(fact.fields));
    for (const [field, fieldFact] of Object.entries(fact.fields)) {
      const expected = deviations[`${model}.${field}`] ?? fieldFact;
      expect(comparable(fields.properties[field]), `${model}.${field}`).toEqual(comparable(expected));
    }
    expect(fields.required).toEqual([]);

    const entry = definitions[`entry_${model}`]!;
    const permissions = entry.properties.permissions as { items: { properties: { permission: { enum: string[] } } } };
    expect(permissions.items.properties.permission.enum).toEqual(fact.permission_codenames);
    expect(entry.properties.model).toMatchObject({ const: model });
    expect(entry.properties.attrs).toMatchObject({ $ref: `#/definitions/model_${model}` });
    if (fact.identifiers_required) {
      expect(entry.required).toEqual(['model', 'identifiers']);
      expect(entry.properties.identifiers).toMatchObject({ $ref: `#/definitions/model_${model}` });
    } else {
      expect(entry.required).toEqual(['model']);
      expect(entry.properties).not.toHaveProperty('identifiers');
    }
  });

  it('bounds token_length of the static authenticator stage at 100', () => {
    const stage = definitions['model_idp_stages_authenticator_static.authenticatorstaticstage']!;
    expect(stage.properties.token_length).toMatchObject({ type: 'integer', maximum: 100 });
  });
});
