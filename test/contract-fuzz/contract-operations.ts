import type { ValidateFunction } from 'ajv';
import { createOpenApiAjv } from '../../server/http/ajv.ts';
import { loadOpenApiDocument } from '../../server/http/openapi-document.ts';
import type { OperationId } from '../../server/http/contract.ts';
import { escapePointer, resolveRef, schemaValidator } from '../support/contract-client.ts';
import type { Schema } from './schema-arbitrary.ts';

export interface QueryParameter {
  name: string;
  schema: Schema;
}

/** What the fuzzer needs of one operation of the contract. */
export interface FuzzOperation {
  id: OperationId;
  method: string;
  path: string;
  /** The resource its path names (`transactions` for `/api/v1/transactions/{id}`). */
  resource: string;
  /**
   * Whether the records it answers with are of that resource: not for a sub-resource such as
   * `/chats/{chat_id}/messages`, whose ids are messages, not chats.
   */
  answersWithResource: boolean;
  scope: 'read' | 'read_write';
  /** Name of the path parameter, when the path has one. */
  pathParameter?: string;
  query: QueryParameter[];
  /** The request body's schema and its validator (no coercion: a body is taken as sent). */
  body?: { schema: Schema; validate: ValidateFunction };
  /** Query values as the server reads them: text coerced to the parameter's type. */
  validateQuery: ValidateFunction;
}

const queryAjv = createOpenApiAjv({ coerceTypes: true });

/** A parameter's schema with its `$ref`s replaced by what they name (parameter schemas are small and not recursive). */
function inline(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inline);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(resolveRef(node as Schema)).map(([key, value]) => [key, inline(value)]));
}
const document = loadOpenApiDocument();

/** Every operation of the contract that takes a credential (sign-in has suites of its own). */
export const fuzzOperations: FuzzOperation[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item ?? {}).flatMap(([method, node]) => {
    const operation = node as Schema;
    const id = operation.operationId as OperationId | undefined;
    if (!id || (operation.security as unknown[] | undefined)?.length === 0) return [];
    const parameters = ((operation.parameters ?? []) as Schema[]).map((parameter) => resolveRef(parameter));
    const query = parameters
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => ({ name: parameter.name as string, schema: inline(parameter.schema) as Schema }));
    const content = operation.requestBody?.content?.['application/json'];
    const bodyPointer = `/paths/${escapePointer(path)}/${method}/requestBody/content/${escapePointer('application/json')}/schema`;
    return [
      {
        id,
        method: method.toUpperCase(),
        path,
        resource: path.split('/')[3]!,
        answersWithResource: /^\/api\/v1\/[^/]+(\/\{\w+\})?$/.test(path),
        scope: operation['x-scope'] === 'read_write' ? 'read_write' : 'read',
        pathParameter: /\{(\w+)\}/.exec(path)?.[1],
        query,
        body: content ? { schema: resolveRef(content.schema), validate: schemaValidator(bodyPointer) } : undefined,
        validateQuery: queryAjv.compile({
          type: 'object',
          properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])),
        }),
      } satisfies FuzzOperation,
    ];
  }),
);
