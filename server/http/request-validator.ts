import type { ErrorObject } from 'ajv';
import type { OpenAPIBackend, Operation } from 'openapi-backend';

/** A request as the router has already read it. */
export interface ReadRequest {
  /** Path parameters as matched, still percent-encoded (the path is known to decode). */
  params: Record<string, string>;
  /** The query string parsed into values (arrays for repeated or `[]` names). */
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The cookies the operation declares, as the handler will get them. */
  cookies: Record<string, string>;
  body: unknown;
}

/** Ajv's findings (openapi-backend's ValidationResult errors) and the coerced path and query. */
export interface CheckedRequest {
  errors: ErrorObject[];
  params: Record<string, unknown>;
  query: Record<string, unknown>;
}

type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

interface Parameter {
  in?: string;
  name?: string;
  schema?: { type?: unknown };
  content?: unknown;
  explode?: boolean;
}

/**
 * Checks one operation's requests with the Ajv validators openapi-backend compiled from the contract
 * (the body's, and the path/query/header/cookie one, which coerces types), fed with what the router
 * already read: openapi-backend's own validateRequest parses every request again (headers, cookies,
 * the query deep-copied, the path template compiled anew), which cost as much as the validation.
 * The checks are the same as its validateRequest's (openapi-backend 5), for the parameter kinds the
 * contract uses; a kind it does not use is refused when the router is built.
 */
export function requestValidator(api: OpenAPIBackend, operation: Operation): (request: ReadRequest) => CheckedRequest {
  const validators = (api.validator.getRequestValidatorsForOperation(operation.operationId!) ??
    []) as unknown as CompiledValidator[];
  const parameters = (operation.parameters ?? []) as Parameter[];
  const special = parameters.find((parameter) => parameter.content || parameter.explode === false);
  if (special)
    throw new Error(`${operation.operationId}: parameter ${special.name} needs openapi-backend's own parsing`);
  // A single value of a list parameter (`account_ids=x`) is a list of one.
  const listQuery = parameters
    .filter((parameter) => parameter.in === 'query' && parameter.schema?.type === 'array')
    .map((parameter) => parameter.name!);
  const bodyTypes = Object.keys((operation.requestBody as { content?: object } | undefined)?.content ?? {});
  const jsonOnly = bodyTypes.length === 1 && bodyTypes[0] === 'application/json';

  return (request) => {
    const errors: ErrorObject[] = [];
    const query = request.query;
    for (const name of listQuery) if (typeof query[name] === 'string') query[name] = [query[name]];
    const path: Record<string, unknown> = {};
    for (const name in request.params) path[name] = decodeURIComponent(request.params[name]!);

    // A body that parsed to a scalar: JSON that is not an object, or text to report as unparseable.
    let body = request.body;
    if (body && typeof body !== 'object') {
      try {
        body = JSON.parse(String(body));
      } catch {
        // reported below
      }
    }
    if (typeof request.body !== 'object' && request.body !== undefined && jsonOnly) {
      try {
        JSON.parse(String(request.body));
      } catch (error) {
        errors.push({
          keyword: 'parse',
          instancePath: '',
          schemaPath: '#/requestBody',
          params: [],
          message: (error as Error).message,
        });
      }
    }
    const contentType = String(
      (Array.isArray(request.headers['content-type'])
        ? request.headers['content-type'][0]
        : request.headers['content-type']) ?? '',
    )
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const input: Record<string, unknown> = {
      path,
      query,
      // Coercion writes into what it checks: a copy, so the request's own headers stay as sent.
      header: { ...request.headers },
      cookie: request.cookies,
    };
    if (typeof body === 'object' || contentType === 'application/json') input.requestBody = body;
    for (const validate of validators) {
      validate(input);
      if (validate.errors) errors.push(...validate.errors);
    }
    return { errors, params: path, query };
  };
}
