import { describe, expect, it } from 'vitest';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import { SCHEMA_SOURCE_DIR, generateBlueprintSchemaText } from '../../scripts/blueprint-schema/generate.ts';
import { sourceCopy } from './source-copy.ts';

type Schema = Record<string, unknown> & { items?: Schema };
type Definitions = Record<string, { properties: Record<string, Schema> }>;

const releaseOrder = loadBlueprintSource(SCHEMA_SOURCE_DIR).models.map((model) => model.name);

describe('x-references in the generated schema', () => {
  const { definitions } = JSON.parse(generateBlueprintSchemaText()) as { definitions: Definitions };
  const field = (model: string, name: string): Schema => definitions[`model_${model}`]!.properties[name]!;

  it('names the flow for the target of a flow stage binding', () => {
    expect(field('idp_flows.flowstagebinding', 'target')).toMatchObject({
      format: 'uuid',
      'x-references': ['idp_flows.flow'],
    });
  });

  it('expands a pattern into every matching model, in release order: every stage for `stage`', () => {
    const stages = releaseOrder.filter((model) => model.endsWith('stage'));
    expect(stages.length).toBeGreaterThan(20);
    expect(field('idp_flows.flowstagebinding', 'stage')['x-references']).toEqual(stages);
  });

  it('puts them on the items of an array of uuid', () => {
    const mappings = field('idp_sources_ldap.ldapsource', 'user_property_mappings');
    expect(mappings).not.toHaveProperty('x-references');
    expect(mappings.items!['x-references']).toEqual(releaseOrder.filter((model) => model.endsWith('mapping')));
  });

  it('lets a model override the references of a field name', () => {
    expect(field('idp_policies.policybinding', 'target')['x-references']).toEqual(
      expect.arrayContaining(['idp_flows.flow', 'idp_core.application', 'idp_sources_ldap.ldapsource']),
    );
    expect(field('idp_policies.policybinding', 'group')['x-references']).toEqual(['idp_core.group']);
  });

  it('leaves out fields not listed, and same-named fields that are not uuids', () => {
    expect(field('idp_endpoints_connectors_agent.agentconnector', 'connector_uuid')).not.toHaveProperty('x-references');
    expect(field('idp_endpoints.deviceuserbinding', 'target')).not.toHaveProperty('x-references');
    expect(field('idp_endpoints.deviceuserbinding', 'group')['x-references']).toEqual(['idp_core.group']);
    // The group of an application is a plain string, not a group's uuid.
    expect(field('idp_core.application', 'group')).not.toHaveProperty('x-references');
  });
});

describe('a bad references.yaml', () => {
  // A copy of the source whose references.yaml each case replaces.
  const { directory, write } = sourceCopy();
  const generateWith = (references: string) => () => {
    write('references.yaml', references);
    return generateBlueprintSchemaText(directory);
  };

  it.each([
    [
      'a pattern that matches no model',
      'fields:\n  authentication_flow: [idp_flows.flow, "idp_flowz.*"]\n',
      'references.yaml: fields.authentication_flow[1]: "idp_flowz.*" matches no model',
    ],
    [
      'a field name no model has',
      'fields:\n  authentication_flows: [idp_flows.flow]\n',
      'references.yaml: fields.authentication_flows: no model has a field "authentication_flows"',
    ],
    [
      'a field pattern no field matches',
      'fields:\n  "*_flowz": [idp_flows.flow]\n',
      'references.yaml: fields.*_flowz: no model has a field matching "*_flowz"',
    ],
    [
      'a field the model does not have',
      'models:\n  idp_flows.flowstagebinding:\n    targt: [idp_flows.flow]\n',
      'references.yaml: models.idp_flows.flowstagebinding.targt: idp_flows.flowstagebinding has no field "targt"',
    ],
    [
      'a model models.yaml does not have',
      'models:\n  idp_flows.flowstagebind:\n    target: [idp_flows.flow]\n',
      'references.yaml: models.idp_flows.flowstagebind: no such model in models.yaml',
    ],
    [
      'a field name that is no uuid field in any model',
      'fields:\n  slug: [idp_flows.flow]\n',
      'references.yaml: fields.slug: no model has "slug" as a uuid field (or array of uuid)',
    ],
    [
      'a model field that is not a uuid field',
      'models:\n  idp_flows.flowstagebinding:\n    order: [idp_flows.flow]\n',
      'references.yaml: models.idp_flows.flowstagebinding.order: not a uuid field (or array of uuid): {"description":',
    ],
    [
      'two field patterns for one field',
      'fields:\n  "*_flow": [idp_flows.flow]\n  "authentication_*": [idp_flows.flow]\n',
      'references.yaml: fields.authentication_*: "authentication_flow" is also matched by "*_flow"',
    ],
    [
      'an empty model list',
      'fields:\n  policy: []\n',
      'references.yaml: fields.policy: expected a non-empty list of model names or patterns',
    ],
    [
      'a model listed twice',
      'fields:\n  policy: [idp_core.group, idp_core.group]\n',
      'references.yaml: fields.policy: "idp_core.group" is listed twice',
    ],
    ['an unknown top-level key', 'field:\n  policy: [idp_core.group]\n', 'references.yaml: field: unknown key'],
  ])('stops the generator on %s', (_case, references, message) => {
    expect(generateWith(references)).toThrow(message);
  });

  it('accepts an exact field name next to a pattern that also matches it', () => {
    const text = generateWith('fields:\n  "*_flow": [idp_flows.flow]\n  target_flow: ["idp_stages_*stage"]\n')();
    const { definitions } = JSON.parse(text) as { definitions: Definitions };
    const redirect = definitions['model_idp_stages_redirect.redirectstage']!.properties;
    expect(redirect.target_flow!['x-references']).toEqual(
      releaseOrder.filter((model) => /^idp_stages_.*stage$/.test(model)),
    );
    const identification = definitions['model_idp_stages_identification.identificationstage']!.properties;
    expect(identification.recovery_flow!['x-references']).toEqual(['idp_flows.flow']);
  });
});
