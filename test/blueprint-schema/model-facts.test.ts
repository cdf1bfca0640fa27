import { describe, expect, it } from 'vitest';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import { SCHEMA_SOURCE_DIR, generateBlueprintSchemaText } from '../../scripts/blueprint-schema/generate.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  compareWithFacts,
  comparable,
  deviations,
  readModelFacts,
  releaseView,
  type Definitions,
  type ModelFacts,
} from '../../scripts/check-model-facts.ts';
import { releaseFactsOf } from '../../scripts/import-release-facts.ts';

// The release's facts are committed (schemas/release-facts.json, written by
// scripts/import-release-facts.ts), so these checks hold on a clone of the repository alone.
const source = loadBlueprintSource(SCHEMA_SOURCE_DIR);
// Parsed from the generated text, as a consumer sees it (integer bounds beyond 2^53 included).
const { definitions } = JSON.parse(generateBlueprintSchemaText()) as { definitions: Definitions };
const branches = (definitions.blueprint_entry as unknown as { oneOf: Array<{ $ref: string }> }).oneOf;

/** The codenames a model's `permissions` in models.yaml stand for, sorted (README: `standard` is four). */
function codenamesOf(model: (typeof source.models)[number]): string[] {
  const short = model.name.slice(model.name.indexOf('.') + 1);
  const standard = ['add', 'change', 'delete', 'view'].map((verb) => `${verb}_${short}`);
  return model.permissions.flatMap((item) => (item === 'standard' ? standard : [item])).sort();
}

/** Facts as the facts file writes them, read back from the schema: what the script compares against. */
function factsOfSchema(): ModelFacts {
  const models: ModelFacts['models'] = {};
  for (const model of source.models) {
    const fields = definitions[`model_${model.name}`]!;
    const entry = definitions[`entry_${model.name}`]!;
    const permissions = entry.properties.permissions as { items: { properties: { permission: { enum: string[] } } } };
    models[model.name] = {
      identifiers_required: entry.required.includes('identifiers'),
      fields: Object.fromEntries(
        Object.entries(fields.properties).map(([name, schema]) => [
          name,
          releaseView(structuredClone(schema), model.name, name, source.serviceFields),
        ]),
      ),
      permission_codenames: [...permissions.items.properties.permission.enum],
    };
  }
  return { model_order: source.models.map((model) => model.name), models };
}

describe('the schema keeps the field facts of schemas/source/models.yaml', () => {
  it('has the 116 models, in the order of models.yaml', () => {
    expect(source.models).toHaveLength(116);
    expect(branches.map((branch) => branch.$ref)).toEqual(
      source.models.map((model) => `#/definitions/entry_${model.name}`),
    );
  });

  it.each(source.models.map((model) => [model.name, model] as const))(
    '%s: fields, permissions and identifiers',
    (name, model) => {
      const fields = definitions[`model_${name}`]!;
      expect(Object.keys(fields.properties)).toEqual(model.fields.map(([field]) => field));
      expect(fields.required).toEqual([]);

      const entry = definitions[`entry_${name}`]!;
      const permissions = entry.properties.permissions as { items: { properties: { permission: { enum: string[] } } } };
      expect(permissions.items.properties.permission.enum).toEqual(codenamesOf(model));
      expect(entry.properties.model).toMatchObject({ const: name });
      expect(entry.properties.attrs).toMatchObject({ $ref: `#/definitions/model_${name}` });
      if (model.withoutIdentifiers) {
        expect(entry.required).toEqual(['model']);
        expect(entry.properties).not.toHaveProperty('identifiers');
      } else {
        expect(entry.required).toEqual(['model', 'identifiers']);
        expect(entry.properties.identifiers).toMatchObject({ $ref: `#/definitions/model_${name}` });
      }
    },
  );

  it('only the meta model has entries without identifiers', () => {
    const without = source.models.filter((model) => model.withoutIdentifiers).map((model) => model.name);
    expect(without).toEqual(['idp_blueprints.metaapplyblueprint']);
  });

  it.each(Object.entries(deviations))('keeps the deviation from the release at %s', (key, expected) => {
    const at = key.lastIndexOf('.');
    const field = definitions[`model_${key.slice(0, at)}`]?.properties[key.slice(at + 1)];
    expect(comparable(field)).toEqual(comparable(expected));
  });

  it('bounds token_length of the static authenticator stage at 100', () => {
    const stage = definitions['model_idp_stages_authenticator_static.authenticatorstaticstage']!;
    expect(stage.properties.token_length).toMatchObject({ type: 'integer', maximum: 100 });
  });
});

describe('the release facts (schemas/release-facts.json)', () => {
  const facts = readModelFacts();

  it('are those of the 116 models, in the order of models.yaml', () => {
    expect(facts.model_order).toEqual(source.models.map((model) => model.name));
  });

  it('are all kept by the schema, where it does not follow the service instead', () => {
    expect(compareWithFacts(facts, definitions)).toEqual([]);
  });

  it('read back as the facts file they were written from', () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'release-facts-'));
    try {
      const file = path.join(directory, 'facts.json');
      writeFileSync(file, JSON.stringify(facts));
      expect(readModelFacts(file)).toEqual(facts);
      writeFileSync(file, JSON.stringify(releaseFactsOf(facts, '2025.12.0')));
      expect(readModelFacts(file)).toEqual(facts);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('scripts/check-model-facts.ts', () => {
  it('finds no difference between the schema and facts that match it', () => {
    expect(compareWithFacts(factsOfSchema(), definitions)).toEqual([]);
  });

  it('reports a changed bound, a missing field, other permissions, identifiers and model order', () => {
    const facts = factsOfSchema();
    const stage = facts.models['idp_stages_authenticator_static.authenticatorstaticstage']!;
    stage.fields.token_length = { type: 'integer', minimum: 0, maximum: 99 };
    const user = facts.models['idp_core.user']!;
    delete user.fields.email;
    user.permission_codenames = user.permission_codenames.filter((codename) => codename !== 'impersonate');
    facts.models['idp_core.group']!.identifiers_required = false;
    facts.model_order = facts.model_order.filter((model) => model !== 'idp_tenants.domain');

    const differences = compareWithFacts(facts, definitions);
    expect(differences).toHaveLength(5);
    expect(differences[0]).toMatch(/^model order differs \(missing: -; not in the facts: idp_tenants\.domain\)$/);
    expect(differences.join('\n')).toMatch(/^idp_stages_authenticator_static\.authenticatorstaticstage\.token_length: .*"maximum":100.*the facts: .*"maximum":99/m); // prettier-ignore
    expect(differences.join('\n')).toMatch(/^idp_core\.user: fields .*email.*; the facts: (?!.*email)/m);
    expect(differences.join('\n')).toMatch(
      /^idp_core\.user: permissions .*impersonate.*; the facts: (?!.*impersonate)/m,
    );
    expect(differences.join('\n')).toMatch(/^idp_core\.group: identifiers required; the facts say the opposite$/m);
  });

  it('compares a field service-fields.yaml widens with the release fact, narrowed back', () => {
    const facts = factsOfSchema();
    // What the release says of these: the script must accept our null and our numbers all the same.
    facts.models['idp_stages_authenticator_totp.authenticatortotpstage']!.fields.digits = { type: 'string', enum: ['6', '8'] }; // prettier-ignore
    facts.models['idp_policies.policybinding']!.fields.group = { type: 'string', format: 'uuid' };
    expect(compareWithFacts(facts, definitions)).toEqual([]);
    facts.models['idp_policies.policybinding']!.fields.group = { type: 'string', format: 'uuid', maxLength: 1 };
    expect(compareWithFacts(facts, definitions)).toEqual([
      'idp_policies.policybinding.group: {"type":"string","format":"uuid"}; the facts: {"type":"string","format":"uuid","maxLength":1}',
    ]);
  });
});
