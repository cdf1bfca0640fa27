import { createHash } from 'node:crypto';
import qs from 'qs';
import bourne from '@hapi/bourne';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import type { StoredText } from '../core/stored-text.ts';
import { createOpenApiAjv } from './ajv.ts';
import type { ResponseErrorDetail } from './errors.ts';
import { jsonShapeProblem } from './json-shape.ts';
import { nulCharacterProblems } from './nul-characters.ts';
import type { OpenApiDocument } from './openapi-document.ts';
import { requestValidator, type ReadRequest, type CheckedRequest } from './request-validator.ts';
import { isPathProblem, validationDetails } from './validation-errors.ts';

/**
 * The contract's validators of requests: openapi-backend compiles them (`quick`: an operation's
 * when first used); request-validator.ts runs them (its own router and request parsing cost as
 * much as the validation: docs/stack-traps.md#openapi-backend).
 */
export async function createRequestValidator(document: OpenApiDocument): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: document as never,
    strict: true,
    quick: true,
    validate: true,
    coerceTypes: true,
    // `verbose` gives each error its schema, where the contract may word the message (x-error-messages).
    customizeAjv: (_ajv, ajvOptions) => createOpenApiAjv({ ...ajvOptions, verbose: true }) as never,
  });
  await api.init();
  return api;
}

/** A request as the contract sees it: its route already matched, the body already parsed. */
export interface RequestParts {
  path: string;
  /** The path's parameters as the route table matched them, still percent-encoded. */
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  querystring: string;
  /** The cookies the operation declares. */
  cookies: Record<string, string>;
  body: unknown;
}

/** How one operation's requests are checked: its compiled validators, and where the contract words their messages. */
export interface OperationCheck {
  validate: (request: ReadRequest) => CheckedRequest;
  schemas: () => Record<string, unknown>[];
}

export function operationCheck(api: OpenAPIBackend, operation: Operation): OperationCheck {
  return { validate: requestValidator(api, operation), schemas: () => requestSchemas(api, operation.operationId!) };
}

/** What checking a request against its operation found. */
export type RequestCheck =
  | { outcome: 'not_found' }
  | { outcome: 'invalid'; problems: ResponseErrorDetail[] }
  | { outcome: 'valid'; params: Record<string, unknown>; query: Record<string, unknown> };

/**
 * The query string as values: `a[]=1&a[]=2` and `a=1&a=2` both give arrays. qs is told to keep
 * up to 1,000 items as an array (its default turns a 21st item into an object), so the contract's
 * own `maxItems` is what refuses long lists, with a clear message.
 */
function parseQuery(querystring: string): Record<string, unknown> {
  // Most requests have no query: qs would still build its options for it.
  return querystring ? qs.parse(querystring, QUERY_OPTIONS) : {};
}

const QUERY_OPTIONS = { arrayLimit: 1000, parameterLimit: 2000, depth: 2 };

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** The schemas an operation's request is validated with, where the contract words its messages. */
function requestSchemas(api: OpenAPIBackend, operationId: string): Record<string, unknown>[] {
  const validators = api.validator.getRequestValidatorsForOperation(operationId) as { schema?: unknown }[];
  return validators.flatMap((validate) =>
    validate.schema && typeof validate.schema === 'object' ? [validate.schema as Record<string, unknown>] : [],
  );
}

/**
 * Checks a request against its operation of the contract: a path that cannot name a record is
 * `not_found`; otherwise every problem of its parameters and body (the contract's rules, then NUL
 * characters, which PostgreSQL text cannot hold) or the parameters as coerced.
 */
export function checkRequest(check: OperationCheck, request: RequestParts): RequestCheck {
  // A path that does not decode (`/transactions/%E0%A4`) cannot name a record.
  if (!decodes(request.path)) return { outcome: 'not_found' };
  const query = parseQuery(request.querystring);
  const {
    errors,
    params,
    query: coerced,
  } = check.validate({
    params: request.params,
    query,
    headers: request.headers,
    cookies: request.cookies,
    body: request.body,
  });
  if (errors.some(isPathProblem)) return { outcome: 'not_found' };
  const nulInQuery = nulCharacterProblems(query, '/query');
  const nulInBody = nulCharacterProblems(request.body, '/body');
  if (errors.length || nulInQuery.length || nulInBody.length) {
    const problems = [
      ...(errors.length ? validationDetails(errors, check.schemas()) : []),
      ...nulInQuery,
      ...nulInBody,
    ];
    return { outcome: 'invalid', problems };
  }
  return { outcome: 'valid', params, query: coerced };
}

/** What reading a JSON body found: its value, or why it is refused (400 `malformed`, 422 `invalid`). */
export type JsonRead =
  | { outcome: 'parsed'; body: unknown }
  | { outcome: 'malformed'; message: string }
  | { outcome: 'invalid'; problems: ResponseErrorDetail[] };

const BOM = '\uFEFF';

/**
 * Reads a JSON body from its UTF-8 bytes, as the event loop (`json-body.ts`) and the body thread
 * both do: a leading BOM is dropped, empty text stays empty text (the contract then refuses it),
 * any JSON text parses, a `__proto__` member is refused; then the shape limits apply
 * (`json-shape.ts`).
 */
export function readJson(bytes: Uint8Array): JsonRead {
  const decoded = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const text = decoded.startsWith(BOM) ? decoded.slice(1) : decoded;
  let body: unknown;
  try {
    body = text ? bourne.parse(text, { protoAction: 'error' }) : text;
  } catch (error) {
    return { outcome: 'malformed', message: `Request body is not valid JSON: ${(error as Error).message}` };
  }
  const problem = jsonShapeProblem(body);
  return problem ? { outcome: 'invalid', problems: [problem] } : { outcome: 'parsed', body };
}

/**
 * A request the contract accepts: its parameters as coerced (and its body, when checked with it),
 * and the UTF-8 bytes of its large text field, when the operation has one (`checkJsonRequest`), or
 * where the body thread stored them (`stored`, body-thread.ts).
 */
export type ValidRequest = Extract<RequestCheck, { outcome: 'valid' }> & {
  body?: unknown;
  text?: Uint8Array;
  stored?: StoredText;
};

/** What checking a request with a JSON body found: as `readJson` and `checkRequest`, the body once valid. */
export type BodyCheck = Exclude<JsonRead, { outcome: 'parsed' }> | RequestCheck | ValidRequest;

/**
 * Reads a JSON body from its bytes and checks the request with it: what `body-thread.ts` runs off
 * the event loop. With `textField`, a valid body's string at that top-level field comes back as
 * UTF-8 bytes (`text`) and its place in the body holds the bytes' SHA-256 instead: a 10 MiB CSV
 * then reaches the database without the event loop encoding it (docs/faults.md), and the body
 * still tells requests apart (Idempotency-Key fingerprints).
 */
export function checkJsonRequest(
  check: OperationCheck,
  request: Omit<RequestParts, 'body'>,
  bytes: Uint8Array | undefined,
  textField?: string,
): BodyCheck {
  let body: unknown;
  if (bytes) {
    const read = readJson(bytes);
    if (read.outcome !== 'parsed') return read;
    body = read.body;
  }
  const checked = checkRequest(check, { ...request, body });
  if (checked.outcome !== 'valid') return checked;
  const value = textField ? (body as Record<string, unknown>)[textField] : undefined;
  if (typeof value !== 'string') return { ...checked, body };
  const text = Buffer.from(value, 'utf8');
  const digest = `sha256:${createHash('sha256').update(text).digest('base64url')}`;
  return { ...checked, body: { ...(body as object), [textField!]: digest }, text };
}
