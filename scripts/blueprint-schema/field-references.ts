import { REFERENCES_FILE, SourceError, type BlueprintSource } from './blueprint-source.ts';
import type { SchemaObject, SchemaValue } from './schema-json.ts';

/** The keyword on a uuid schema that lists the models its value refers to. */
const REFERENCES_KEYWORD = 'x-references';

/** Model -> field -> the models its uuids refer to, in release order. */
export type FieldReferences = Map<string, Map<string, string[]>>;

/**
 * The references of references.yaml, checked against the built fields of every model (`properties`
 * of each model's fields definition, by model name): patterns expanded, each field a uuid field.
 */
export function resolveFieldReferences(
  source: BlueprintSource,
  fieldsByModel: ReadonlyMap<string, SchemaObject>,
): FieldReferences {
  const releaseOrder = source.models.map((model) => model.name);
  const resolved: FieldReferences = new Map(releaseOrder.map((model) => [model, new Map()]));
  const expand = (patterns: readonly string[], where: string): string[] => {
    const chosen = new Set<string>();
    patterns.forEach((pattern, index) => {
      const matches = releaseOrder.filter((model) => globMatches(pattern, model));
      if (matches.length === 0)
        throw new SourceError(REFERENCES_FILE, `${where}[${index}]`, `"${pattern}" matches no model`);
      for (const model of matches) chosen.add(model);
    });
    return releaseOrder.filter((model) => chosen.has(model));
  };

  // By field name: an exact name claims its field before any pattern does, and a pattern may not
  // take a field another pattern has (which of them is meant would be a guess).
  const byName = [...source.references.fields].sort(([a], [b]) => Number(a.includes('*')) - Number(b.includes('*')));
  const claimedBy = new Map<string, string>();
  for (const [name, patterns] of byName) {
    const where = `fields.${name}`;
    const models = expand(patterns, where);
    const found = [...fieldsByModel].flatMap(([model, properties]) =>
      Object.entries(properties)
        .filter(([field]) => globMatches(name, field))
        .map(([field, schema]) => ({ model, field, schema })),
    );
    if (found.length === 0) throw new SourceError(REFERENCES_FILE, where, `no model has a field ${described(name)}`);
    const uuidFields = found.filter(({ schema }) => uuidSchema(schema) !== undefined);
    if (uuidFields.length === 0) {
      throw new SourceError(
        REFERENCES_FILE,
        where,
        `no model has ${described(name)} as a uuid field (or array of uuid)`,
      );
    }
    for (const { model, field } of uuidFields) {
      const claimant = claimedBy.get(field) ?? name;
      if (claimant === field && name !== field) continue;
      if (claimant !== name)
        throw new SourceError(REFERENCES_FILE, where, `"${field}" is also matched by "${claimant}"`);
      claimedBy.set(field, name);
      resolved.get(model)!.set(field, models);
    }
  }

  for (const [model, fields] of source.references.models) {
    const properties = fieldsByModel.get(model);
    if (!properties) throw new SourceError(REFERENCES_FILE, `models.${model}`, 'no such model in models.yaml');
    for (const [field, patterns] of fields) {
      const where = `models.${model}.${field}`;
      const schema = properties[field];
      if (schema === undefined) throw new SourceError(REFERENCES_FILE, where, `${model} has no field "${field}"`);
      if (uuidSchema(schema) === undefined) {
        throw new SourceError(REFERENCES_FILE, where, `not a uuid field (or array of uuid): ${JSON.stringify(schema)}`);
      }
      resolved.get(model)!.set(field, expand(patterns, where));
    }
  }
  return resolved;
}

/** A model's fields definition with `x-references` on the uuid schema of each field that has them. */
export function withReferences(definition: SchemaObject, references: ReadonlyMap<string, string[]>): SchemaObject {
  if (references.size === 0) return definition;
  const properties = { ...(definition.properties as SchemaObject) };
  for (const [field, models] of references) {
    const schema = properties[field] as SchemaObject;
    const target = uuidSchema(schema)!;
    const marked = { ...target, [REFERENCES_KEYWORD]: models };
    properties[field] = target === schema ? marked : { ...schema, items: marked };
  }
  return { ...definition, properties };
}

/** The schema holding the uuid: the field's own, or its items' for an array of uuid. */
function uuidSchema(schema: SchemaValue | undefined): SchemaObject | undefined {
  if (!isSchema(schema)) return undefined;
  if (schema.format === 'uuid') return schema;
  const items = schema.items;
  return [schema.type].flat().includes('array') && isSchema(items) && items.format === 'uuid' ? items : undefined;
}

const isSchema = (value: SchemaValue | undefined): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const described = (name: string): string => (name.includes('*') ? `matching "${name}"` : `"${name}"`);

/** Whether `name` matches `pattern`, whose `*` stands for any characters (the rest is literal). */
function globMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const parts = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(name);
}
