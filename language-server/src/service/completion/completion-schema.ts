import { resolvePointer } from '../schema/json-pointer.ts';
import { isObject, type JsonObject, type SchemaIndex } from '../schema/schema-index.ts';
import type { ContextStep } from './completion-context.ts';

/** The schema facts completion shows and decides by: the schemas under a step, their types, a summary. */

/** Enums up to this size become a choice in an inserted key's snippet, and are listed in full in documentation. */
export const MAX_CHOICES = 12;

/** Follows `$ref`s and flattens `anyOf`/`oneOf`/`allOf` into the schemas a value may match. */
export function expand(index: SchemaIndex, schemas: readonly unknown[], depth = 0): JsonObject[] {
  const found: JsonObject[] = [];
  for (let schema of schemas) {
    for (let hop = 0; hop < 8 && isObject(schema) && typeof schema.$ref === 'string'; hop++) {
      schema = resolvePointer(index.root, schema.$ref);
    }
    if (!isObject(schema)) continue;
    found.push(schema);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const parts = schema[key];
      if (Array.isArray(parts) && depth < 4) found.push(...expand(index, parts, depth + 1));
    }
  }
  return found;
}

export function childSchemas(index: SchemaIndex, schemas: readonly JsonObject[], step: ContextStep): JsonObject[] {
  const found: unknown[] = [];
  for (const schema of expand(index, schemas)) {
    if (step.kind === 'key') {
      const properties = isObject(schema.properties) ? schema.properties : {};
      if (Object.hasOwn(properties, step.name)) found.push(properties[step.name]);
      else if (isObject(schema.additionalProperties)) found.push(schema.additionalProperties);
    } else found.push(Array.isArray(schema.items) ? schema.items[step.index ?? 0] : schema.items);
  }
  return found.filter(isObject);
}

/**
 * The models a uuid value refers to, from the `x-references` the generated schema puts on a field's
 * uuid schema (lowercase, as the service compares model names); empty where the schema does not say.
 */
export function referencedModels(index: SchemaIndex, schemas: readonly JsonObject[]): Set<string> {
  const models = new Set<string>();
  for (const schema of expand(index, schemas)) {
    const listed = schema['x-references'];
    if (!Array.isArray(listed)) continue;
    for (const model of listed) if (typeof model === 'string') models.add(model.toLowerCase());
  }
  return models;
}

export function typesOf(index: SchemaIndex, schemas: readonly JsonObject[]): Set<string> {
  const types = new Set<string>();
  for (const schema of expand(index, schemas)) {
    for (const type of [schema.type].flat()) if (typeof type === 'string') types.add(type);
    if (isObject(schema.properties)) types.add('object');
    // A constant or an enum without a `type` still says what it holds.
    if (schema.type === undefined) {
      for (const value of [schema.const, ...(Array.isArray(schema.enum) ? schema.enum : [])]) {
        if (value !== undefined && value !== null && typeof value !== 'object') types.add(typeof value);
      }
    }
  }
  return types;
}

export const isObjectSchema = (index: SchemaIndex, schemas: readonly JsonObject[]): boolean =>
  typesOf(index, schemas).has('object');

/** A one-line summary (detail) and markdown documentation of a key's or value's schema. */
export function describe(
  index: SchemaIndex,
  schemas: readonly JsonObject[],
): { detail: string; documentation: string } {
  const all = expand(index, schemas);
  const description = all.map((schema) => schema.description).find((text) => typeof text === 'string');
  const types = [...typesOf(index, schemas)];
  const pick = (key: string): unknown => all.find((schema) => schema[key] !== undefined)?.[key];
  const items = expand(
    index,
    all.map((schema) => schema.items),
  );
  const itemTypes = [...typesOf(index, items)];
  const format = pick('format');
  const enumValues = pick('enum');
  let detail = types.join(' | ') || 'any';
  if (types.includes('array') && itemTypes.length > 0) detail = `array of ${itemTypes.join(' | ')}`;
  if (typeof format === 'string') detail += ` (${format})`;
  const facts = [`type: ${detail}`];
  if (Array.isArray(enumValues)) {
    const shown = enumValues.slice(0, MAX_CHOICES).map((value) => `\`${String(value)}\``);
    facts.push(`one of: ${shown.join(', ')}${enumValues.length > MAX_CHOICES ? `, … (${enumValues.length})` : ''}`);
  }
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'default']) {
    const value = pick(key);
    if (value !== undefined) facts.push(`${key}: \`${JSON.stringify(value)}\``);
  }
  const text = typeof description === 'string' ? `${description}\n\n` : '';
  return { detail, documentation: text + facts.map((fact) => `- ${fact}`).join('\n') };
}
