import {
  SERVICE_FIELDS_FILE,
  SourceError,
  mapping,
  type BlueprintSource,
  type ModelSource,
} from './blueprint-source.ts';
import { NotationError, parseFieldNotation, type FieldRules, type ValueLists } from './field-notation.ts';
import type { SchemaObject } from './schema-json.ts';

/** The named lists a notation may refer to: `enum @list` and `rule <name>`. */
type NotationLists = { valueLists: ValueLists; fieldRules: FieldRules };

/** Keys of a field written in mapping form (models.yaml): a notation plus a description, or nesting. */
const MAPPING_KEYS = new Set(['type', 'description', 'properties', 'required', 'items']);

/**
 * The definition `attrs` and `identifiers` of one model share: its fields, all optional. Common
 * fields without a description of their own get the one of field-descriptions.yaml.
 */
export function modelFieldsDefinition(model: ModelSource, source: BlueprintSource): SchemaObject {
  const properties: SchemaObject = {};
  for (const [field, spec] of model.fields) {
    const where = `${model.name}.${field}`;
    const schema = widenedForService(expandField(spec, where, source), model.name, field, source);
    const common = source.fieldDescriptions.get(field);
    properties[field] = 'description' in schema || common === undefined ? schema : { description: common, ...schema };
  }
  return { description: model.summary, type: 'object', properties, required: [] };
}

/** Stops the generator on a model or field of service-fields.yaml that models.yaml does not have. */
export function checkServiceFields(source: BlueprintSource): void {
  const { nullable, stringChoices } = source.serviceFields;
  for (const [key, models] of [
    ['nullable', nullable],
    ['string_choices', stringChoices],
  ] as const) {
    for (const [modelName, fields] of models) {
      const model = source.models.find((candidate) => candidate.name === modelName);
      if (!model) throw new SourceError(SERVICE_FIELDS_FILE, `${key}.${modelName}`, 'no such model in models.yaml');
      for (const field of fields.keys()) {
        if (!model.fields.some(([name]) => name === field)) {
          throw new SourceError(SERVICE_FIELDS_FILE, `${key}.${modelName}.${field}`, `${modelName} has no field "${field}"`); // prettier-ignore
        }
      }
    }
  }
}

/**
 * A field's schema widened where service-fields.yaml says the service accepts more than the
 * release's schema: `null` for a nullable field; the numbers themselves for a string enum of
 * numbers whose choices the service compares as strings.
 */
function widenedForService(schema: SchemaObject, model: string, field: string, source: BlueprintSource): SchemaObject {
  const where = `${model}.${field}`;
  const { nullable, stringChoices } = source.serviceFields;
  let widened = schema;
  if (stringChoices.get(model)?.has(field)) {
    const values = Array.isArray(schema.enum) ? schema.enum : [];
    const numbers = values.map((value) => (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : undefined)); // prettier-ignore
    if (schema.type !== 'string' || values.length === 0 || numbers.includes(undefined)) {
      throw new SourceError(SERVICE_FIELDS_FILE, `string_choices.${where}`, 'expected a string enum whose values are all numbers'); // prettier-ignore
    }
    const type = numbers.every((number) => Number.isInteger(number)) ? 'integer' : 'number';
    widened = { ...widened, type: ['string', type], enum: [...values, ...(numbers as number[])] };
  }
  if (nullable.get(model)?.has(field)) {
    const types = [widened.type].flat();
    if (types.includes('null')) {
      throw new SourceError(SERVICE_FIELDS_FILE, `nullable.${where}`, 'already nullable in models.yaml');
    }
    widened = { ...widened, type: [...types, 'null'] as SchemaObject[string] };
    if (Array.isArray(widened.enum)) widened.enum = [null, ...widened.enum];
  }
  return widened;
}

/**
 * The permission codenames of a model, sorted: `standard` stands for add_, change_, delete_ and
 * view_<model>.
 */
export function permissionCodenames(model: ModelSource): string[] {
  const shortName = model.name.slice(model.name.indexOf('.') + 1);
  const codenames = model.permissions.flatMap((codename) =>
    codename === 'standard' ? ['add', 'change', 'delete', 'view'].map((verb) => `${verb}_${shortName}`) : [codename],
  );
  const duplicate = codenames.find((codename, index) => codenames.indexOf(codename) !== index);
  if (duplicate) throw new SourceError('models.yaml', `${model.name}.permissions`, `"${duplicate}" is listed twice`);
  return codenames.sort();
}

/** One field, notation string or mapping form, expanded into its JSON Schema. */
function expandField(spec: unknown, where: string, lists: NotationLists): SchemaObject {
  if (typeof spec === 'string') return parseNotation(spec, where, lists);
  const form = mapping(spec, 'models.yaml', where);
  const unknown = Object.keys(form).find((key) => !MAPPING_KEYS.has(key));
  if (unknown) throw new SourceError('models.yaml', where, `unknown key "${unknown}" (known: ${[...MAPPING_KEYS]})`);
  const shapes = ['type', 'properties', 'items'].filter((key) => key in form);
  if (shapes.length !== 1) {
    throw new SourceError('models.yaml', where, 'give exactly one of "type" (a notation), "properties" or "items"');
  }
  if ('required' in form && !('properties' in form)) {
    throw new SourceError('models.yaml', where, '"required" goes with "properties"');
  }
  const description = form.description;
  if (description !== undefined && (typeof description !== 'string' || description.trim() === '')) {
    throw new SourceError('models.yaml', `${where}.description`, 'expected a non-empty string');
  }
  const schema = shapes[0] === 'type' ? parseNotation(form.type, where, lists) : nested(form, where, lists);
  return description === undefined ? schema : { description, ...schema };
}

/** `properties` (+ `required`): an object with those properties; `items`: an array of them. */
function nested(form: Record<string, unknown>, where: string, lists: NotationLists): SchemaObject {
  if ('items' in form) return { type: 'array', items: expandField(form.items, `${where}[]`, lists) };
  const properties: SchemaObject = {};
  for (const [name, spec] of Object.entries(mapping(form.properties, 'models.yaml', `${where}.properties`))) {
    properties[name] = expandField(spec, `${where}.${name}`, lists);
  }
  const required = form.required;
  if (required === undefined) return { type: 'object', properties };
  if (!Array.isArray(required) || required.some((name) => typeof name !== 'string' || !(name in properties))) {
    throw new SourceError('models.yaml', `${where}.required`, 'expected a list of names from "properties"');
  }
  return { type: 'object', properties, required: required as string[] };
}

function parseNotation(notation: unknown, where: string, lists: NotationLists): SchemaObject {
  if (typeof notation !== 'string') {
    throw new SourceError('models.yaml', where, `expected a field notation, found ${JSON.stringify(notation)}`);
  }
  try {
    return parseFieldNotation(notation, lists.valueLists, lists.fieldRules);
  } catch (error) {
    if (error instanceof NotationError) {
      throw new SourceError('models.yaml', where, `${error.message} in "${notation}"`);
    }
    throw error;
  }
}
