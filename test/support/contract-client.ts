import type { ValidateFunction } from 'ajv';
import { createOpenApiAjv } from '../../server/http/ajv.ts';
import { loadOpenApiDocument } from '../../server/http/openapi-document.ts';
import type { OperationId } from '../../server/http/contract.ts';

const document = loadOpenApiDocument();
const ajv = createOpenApiAjv();
ajv.addSchema(document as object, 'openapi');

type Json = Record<string, unknown>;

interface OperationEntry {
  id: string;
  method: string;
  path: string;
  pattern: RegExp;
  responses: Record<string, Json>;
}

/** The node a `$ref` (or chain of them) points at in the contract; any other node as it is. */
export function resolveRef(node: Json): Json {
  let current = node;
  while (typeof current.$ref === 'string') {
    const pointer = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = pointer.reduce<Json>((value, key) => value[key] as Json, document as unknown as Json);
  }
  return current;
}

const operations: OperationEntry[] = [];
for (const [path, item] of Object.entries(document.paths ?? {})) {
  for (const [method, operation] of Object.entries(item as Json)) {
    const op = operation as Json;
    if (typeof op?.operationId !== 'string') continue;
    const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
    operations.push({
      id: op.operationId,
      method: method.toUpperCase(),
      path,
      pattern,
      responses: op.responses as Json as Record<string, Json>,
    });
  }
}

const validators = new Map<string, ValidateFunction>();

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A validator for the schema at `pointer` in the contract (e.g. `/components/schemas/Tag`), compiled once. */
export function schemaValidator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** The response schema of an operation and status; fails when the contract does not document the status. */
function responseValidator(operation: OperationEntry, status: number): ValidateFunction | null {
  const key = String(status);
  const statusKey =
    key in operation.responses
      ? key
      : `${key[0]}XX` in operation.responses
        ? `${key[0]}XX`
        : 'default' in operation.responses
          ? 'default'
          : undefined;
  if (!statusKey) throw new Error(`${operation.id} does not document status ${status}`);
  const response = resolveRef(operation.responses[statusKey]!);
  const content = response.content as Record<string, Json> | undefined;
  if (!content) return null;
  // Point at the schema where it stands in the document, so its $refs resolve as in the spec.
  const ref = operation.responses[statusKey]!.$ref as string | undefined;
  const base = ref
    ? ref.replace(/^#/, '')
    : `/paths/${escapePointer(operation.path)}/${operation.method.toLowerCase()}/responses/${statusKey}`;
  return schemaValidator(`${base}/content/${escapePointer('application/json')}/schema`);
}

/** Throws unless `body` is what the contract documents for this operation and status. */
export function checkResponse(operationId: OperationId, status: number, body: unknown): void {
  const operation = operations.find((entry) => entry.id === operationId);
  if (!operation) throw new Error(`unknown operationId ${operationId}`);
  const validate = responseValidator(operation, status);
  if (validate && !validate(body)) {
    throw new Error(
      `${operationId} ${status} response breaks the contract: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
  }
  if (!validate && body !== undefined)
    throw new Error(`${operationId} ${status} must have no body, got: ${JSON.stringify(body).slice(0, 200)}`);
}

/** Documented response headers that are present must match their schema (all of ours are integers or text). */
function checkHeaders(operation: OperationEntry, status: number, headers: Headers): void {
  const key = String(status);
  const documented = operation.responses[key] ?? operation.responses[`${key[0]}XX`] ?? operation.responses.default;
  const declared = (documented ? resolveRef(documented).headers : undefined) as Record<string, Json> | undefined;
  for (const [name, header] of Object.entries(declared ?? {})) {
    const value = headers.get(name);
    const schema = resolveRef(header).schema as { type?: string; minimum?: number } | undefined;
    if (value === null || schema?.type !== 'integer') continue;
    if (!/^\d+$/.test(value) || Number(value) < (schema.minimum ?? 0)) {
      throw new Error(`${operation.id} ${status} header ${name}: "${value}" is not what the contract documents`);
    }
  }
}

/** Every operation of the contract: id, method and path template. */
export const contractOperations = operations.map(({ id, method, path }) => ({ id, method, path }));

export interface ApiResponse<Body = any> {
  status: number;
  body: Body;
  /** The body as sent: JSON.parse reads an integer past 2^53 as a neighbour, the text has its digits. */
  text: string;
  headers: Headers;
  operationId: string;
}

export interface RequestOptions {
  key?: string;
  headers?: Record<string, string>;
  /** Query as a ready string (to test raw spellings like `account_ids[]=`) or as values. */
  query?: string | Record<string, string | number | (string | number)[] | undefined>;
  /** A value to send as JSON, or a string sent verbatim. */
  body?: unknown;
}

function queryString(query: RequestOptions['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query ? `?${query}` : '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Calls the real server over HTTP and checks every response against the contract: the status
 * must be documented for the operation and the body must match its schema, or the call throws.
 */
export class ContractClient {
  constructor(readonly baseUrl: string) {}

  /** Calls an operation by its id; `{name}` placeholders in its path are filled from `params`. */
  async call<Body = any>(
    operationId: OperationId,
    options: RequestOptions & { params?: Record<string, string> } = {},
  ): Promise<ApiResponse<Body>> {
    const operation = operations.find((entry) => entry.id === operationId);
    if (!operation) throw new Error(`unknown operationId ${operationId}`);
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = options.params?.[name];
      if (value === undefined) throw new Error(`${operationId} needs path parameter ${name}`);
      return encodeURIComponent(value);
    });
    return this.request(operation.method, path, options);
  }

  /** A raw request to a path of the contract; the response is still checked against the matching operation. */
  async request<Body = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<Body>> {
    const operation = operations.find((entry) => entry.method === method && entry.pattern.test(path));
    if (!operation) throw new Error(`no operation in the contract for ${method} ${path}`);
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['x-api-key'] = options.key;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}${queryString(options.query)}`, {
      method,
      headers,
      body: payload,
      // A redirect (the browser steps of single sign-on) is an answer to check, not to follow.
      redirect: 'manual',
    });
    const text = await response.text();
    // A redirect's body is a courtesy line for people; the contract documents its Location only.
    const body = text && !(response.status >= 300 && response.status < 400) ? JSON.parse(text) : undefined;
    checkResponse(operation.id as OperationId, response.status, body);
    checkHeaders(operation, response.status, response.headers);
    return { status: response.status, body, text, headers: response.headers, operationId: operation.id };
  }
}
