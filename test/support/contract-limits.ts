import { randomUUID } from 'node:crypto';
import type { OperationId } from '../../server/http/contract.ts';
import { loadOpenApiDocument } from '../../server/http/openapi-document.ts';

/** Reading the bounds of the bundled contract: its schemas as plain JSON, $refs followed. */
export type Schema = Record<string, any>;

export const document = loadOpenApiDocument() as unknown as Schema;

/** Follows `$ref`s (local to the bundled document) until a schema or parameter without one. */
export function resolve(node: Schema): Schema {
  let current = node;
  while (typeof current.$ref === 'string') {
    const pointer = current.$ref.replace(/^#\//, '').split('/');
    current = pointer.reduce<Schema>((value, key) => value[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return current;
}

interface ContractOperation {
  id: string;
  method: string;
  path: string;
  operation: Schema;
}

export const operations: ContractOperation[] = Object.entries(document.paths as Schema).flatMap(([path, item]) =>
  Object.entries(item as Schema).flatMap(([method, operation]) =>
    typeof operation?.operationId === 'string' ? [{ id: operation.operationId, method, path, operation }] : [],
  ),
);

/** The parameters of an operation, resolved. */
export function parametersOf(operation: Schema): Schema[] {
  return ((operation.parameters ?? []) as Schema[]).map(resolve);
}

/** A pattern that admits ASCII characters only (`^[\x20-\x7E]+$`, `^[A-Za-z0-9_-]+$`). */
function asciiOnly(pattern: unknown): boolean {
  return typeof pattern === 'string' && /^\^\[[^\]]*\][+*]\$$/.test(pattern) && !/\\u|\\x[89a-f]/i.test(pattern);
}

/** The shared shape of decimal inputs (a JSON number or a decimal string), applied by each field with its bounds. */
export const DECIMAL_INPUT = resolve({ $ref: '#/components/schemas/DecimalInput' });

/**
 * A schema with the schemas it applies in place through `allOf` merged into it (its own keywords
 * win): what a field such as `amount` (`allOf: [DecimalInput]` + its bounds) allows, in one object.
 */
export function flattened(schema: Schema): Schema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...own } = schema;
  return Object.assign({}, ...(allOf as Schema[]).map((part) => flattened(resolve(part))), own);
}

/** The longest value the schema allows, as text of the query string (percent-encoded). */
function longestValue(node: Schema): string {
  const schema = flattened(node);
  if (schema.enum) return [...(schema.enum as string[])].sort((a, b) => b.length - a.length)[0]!;
  if (schema.format === 'uuid') return randomUUID();
  if (schema.format === 'date') return '2024-12-31';
  if (schema.type === 'integer' || schema.type === 'number') return String(schema.maximum);
  // A number or a decimal string: a digit padded to the maxLength with the blanks the pattern
  // allows, the widest of which (U+3000) takes 3 UTF-8 bytes, each written as %XX.
  if (Array.isArray(schema.type) && schema.type.includes('string')) {
    return encodeURIComponent(`${'\u3000'.repeat(schema.maxLength - 1)}1`);
  }
  if (schema.type === 'boolean') return 'false';
  // An ASCII character written as %XX.
  if (schema.type === 'string' && asciiOnly(schema.pattern)) return '%7E'.repeat(schema.maxLength);
  // A code point of 4 UTF-8 bytes, each written as %XX: the longest spelling of one character.
  if (schema.type === 'string') return encodeURIComponent('😀'.repeat(schema.maxLength));
  throw new Error(`no longest value for ${JSON.stringify(schema)}`);
}

/**
 * The longest query string an operation accepts: every query parameter at its bounds (arrays full,
 * with the bracket spelling `name%5B%5D=`, strings at their maxLength in 4-byte characters).
 */
export function longestQuery(operationId: OperationId): string {
  const entry = operations.find((candidate) => candidate.id === operationId);
  if (!entry) throw new Error(`unknown operation ${operationId}`);
  return parametersOf(entry.operation)
    .filter((parameter) => parameter.in === 'query')
    .flatMap((parameter) => {
      const schema = resolve(parameter.schema);
      if (schema.type === 'object' && parameter.explode) {
        // Free-form parameters, each its own name=value pair.
        const name = '%7E'.repeat(schema.propertyNames.maxLength);
        return Array.from(
          { length: schema.maxProperties },
          () => `${name}=${longestValue(schema.additionalProperties)}`,
        );
      }
      if (schema.type !== 'array') return [`${parameter.name}=${longestValue(schema)}`];
      const items = resolve(schema.items);
      return Array.from({ length: schema.maxItems }, () => `${parameter.name}%5B%5D=${longestValue(items)}`);
    })
    .join('&');
}

/** A schema met on a walk, with where it stands (for messages). */
export interface SchemaSite {
  at: string;
  schema: Schema;
}

/** Every schema reachable from `root` (subschemas and $refs followed once each), with its place. */
export function walkSchemas(root: Schema, at: string, seen = new Set<Schema>()): SchemaSite[] {
  const sites: SchemaSite[] = [];
  const stack: SchemaSite[] = [{ at, schema: root }];
  while (stack.length) {
    const site = stack.pop()!;
    const schema = resolve(site.schema);
    if (seen.has(schema)) continue;
    seen.add(schema);
    sites.push({ at: site.at, schema });
    for (const [name, child] of Object.entries((schema.properties ?? {}) as Schema)) {
      stack.push({ at: `${site.at}/${name}`, schema: child });
    }
    if (schema.items) stack.push({ at: `${site.at}/items`, schema: schema.items });
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      for (const [index, child] of ((schema[keyword] ?? []) as Schema[]).entries()) {
        stack.push({ at: `${site.at}/${keyword}/${index}`, schema: child });
      }
    }
  }
  return sites;
}

/** Every schema a client sends: request bodies and parameters of every operation. */
export function requestSchemas(): SchemaSite[] {
  return operations.flatMap(({ id, operation }) => [
    ...parametersOf(operation).flatMap((parameter) =>
      walkSchemas(parameter.schema, `${id} ${parameter.in} ${parameter.name}`),
    ),
    ...Object.values((resolve(operation.requestBody ?? {}).content ?? {}) as Schema).flatMap((media) =>
      walkSchemas(media.schema, `${id} body`),
    ),
  ]);
}
