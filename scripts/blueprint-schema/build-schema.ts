import type { BlueprintSource, ModelSource } from './blueprint-source.ts';
import { CROSS_FIELD_RULES_KEYWORD, crossFieldRulesByModel } from './cross-field-rules.ts';
import { resolveFieldReferences, withReferences } from './field-references.ts';
import { checkServiceFields, modelFieldsDefinition, permissionCodenames } from './model-definitions.ts';
import type { SchemaObject } from './schema-json.ts';

/** Where the schema says it lives; the release label completes it. */
const SCHEMA_ID_BASE = 'https://schemas.idp.example/blueprint/';
const PRODUCT = 'idp';

/** Name of the definition of an entry of `model` (one branch of `blueprint_entry`). */
export function entryDefinitionName(model: string): string {
  return `entry_${model}`;
}

/** Name of the definition `attrs` and `identifiers` of `model` share. */
export function fieldsDefinitionName(model: string): string {
  return `model_${model}`;
}

/** Builds the draft-07 blueprint schema from the source. */
export function buildBlueprintSchema(source: BlueprintSource): SchemaObject {
  const { document } = source;
  checkServiceFields(source);
  const entryList: SchemaObject = {
    description: document['entries.list'],
    type: 'array',
    items: { $ref: '#/definitions/blueprint_entry' },
  };
  const definitions: SchemaObject = {
    blueprint_entry: {
      oneOf: source.models.map((model) => ({ $ref: `#/definitions/${entryDefinitionName(model.name)}` })),
    },
  };
  const fieldsByModel = new Map(source.models.map((model) => [model.name, modelFieldsDefinition(model, source)]));
  // References are checked against the expanded fields: only there is a field known to hold uuids.
  const references = resolveFieldReferences(
    source,
    new Map([...fieldsByModel].map(([name, fields]) => [name, fields.properties as SchemaObject])),
  );
  const crossFieldRules = crossFieldRulesByModel(source, fieldsByModel);
  for (const model of source.models) {
    const rules = crossFieldRules.get(model.name);
    const entry = entryDefinition(model, source);
    definitions[entryDefinitionName(model.name)] = rules ? { ...entry, [CROSS_FIELD_RULES_KEYWORD]: rules } : entry;
    definitions[fieldsDefinitionName(model.name)] = withReferences(
      fieldsByModel.get(model.name)!,
      references.get(model.name)!,
    );
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `${SCHEMA_ID_BASE}${source.release}.json`,
    title: `${PRODUCT} ${source.release} Blueprint schema`,
    type: 'object',
    required: ['version', 'entries'],
    properties: {
      version: { description: document.version, type: 'integer', default: 1 },
      metadata: {
        description: document.metadata,
        type: 'object',
        required: ['name'],
        properties: {
          name: { description: document['metadata.name'], type: 'string' },
          labels: {
            description: document['metadata.labels'],
            type: 'object',
            additionalProperties: { type: 'string' },
          },
        },
      },
      context: { description: document.context, type: 'object', additionalProperties: true },
      entries: {
        description: document.entries,
        anyOf: [
          entryList,
          { description: document['entries.groups'], type: 'object', additionalProperties: entryList },
        ],
      },
    },
    definitions,
  };
}

/** One branch of `blueprint_entry`: the keys every entry has, specialised to `model`. */
function entryDefinition(model: ModelSource, source: BlueprintSource): SchemaObject {
  const { entry, states } = source;
  const fields = { $ref: `#/definitions/${fieldsDefinitionName(model.name)}` };
  const properties: SchemaObject = {
    model: { description: entry.model, const: model.name },
    id: { description: entry.id, type: 'string' },
    state: {
      description: stateDescription(source),
      type: 'string',
      enum: states.values.map(([value]) => value),
      default: states.default,
    },
    conditions: { description: entry.conditions, type: 'array', items: { type: 'boolean' } },
    permissions: {
      description: entry.permissions,
      type: 'array',
      items: {
        type: 'object',
        required: ['permission'],
        properties: {
          permission: {
            description: entry['permissions.permission'],
            type: 'string',
            enum: permissionCodenames(model),
          },
          user: { description: entry['permissions.user'], type: 'integer' },
          role: { description: entry['permissions.role'], type: 'string' },
        },
      },
    },
    attrs: { description: entry.attrs, ...fields },
  };
  if (!model.withoutIdentifiers) properties.identifiers = { description: entry.identifiers, ...fields };
  return {
    description: model.summary,
    type: 'object',
    required: model.withoutIdentifiers ? ['model'] : ['model', 'identifiers'],
    properties,
  };
}

/** The state's description with one line per value, so that editors show every meaning on hover. */
function stateDescription({ entry, states }: BlueprintSource): string {
  const lines = states.values.map(
    ([value, meaning]) => `${value}${value === states.default ? ' (default)' : ''}: ${meaning}`,
  );
  return [entry.state, ...lines].join('\n');
}
