import {
  DomainError,
  MAX_ERROR_ENTRIES,
  RateLimited,
  ServerBusy,
  Unauthorized,
  summary,
  type ErrorDetail,
  type ErrorKind,
} from '../core/errors.ts';

/** One entry of `errors` in a response: `path` is a JSON pointer into the whole request. */
export interface ResponseErrorDetail {
  message: string;
  path?: string;
}

/** The documented error body. */
export interface ErrorBody {
  error: string;
  message: string;
  errors: ResponseErrorDetail[];
  [extra: string]: unknown;
}

/** The one status of each kind of domain error. */
const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  invalid: 422,
  rate_limited: 429,
  busy: 503,
};

/**
 * A refusal only the HTTP layer makes (an unreadable or oversized body, a request the contract
 * rejects): it has its own status, and its pointers already name the part of the request.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ResponseErrorDetail[] = [{ message }],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class MalformedBody extends HttpError {
  constructor(message: string) {
    super(400, 'bad_request', message);
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(limit: number) {
    super(413, 'payload_too_large', `Request body is larger than the limit of ${limit} bytes`);
  }
}

/** A body that is not declared as JSON: the client is told which header to set. */
export class UnsupportedMediaType extends HttpError {
  constructor(received: string | undefined) {
    const message = `Content-Type must be application/json (got ${received || 'none'})`;
    super(415, 'unsupported_media_type', message, [{ message, path: '/header/content-type' }]);
  }
}

/**
 * The database is out of reach for now: restarting or recovering, or no connection came free for
 * the request in time (server/db/connection-loss.ts). The client is told when to try again.
 */
export class ServiceBusy extends HttpError {
  constructor(readonly retryAfterSeconds = 2) {
    super(
      503,
      'service_unavailable',
      `The database cannot be reached or is busy right now; try again in ${retryAfterSeconds} seconds`,
    );
  }
}

/** The request breaks the contract; `details` carry whole-request pointers (`/query/per_page`). */
export class RequestInvalid extends HttpError {
  constructor(details: ResponseErrorDetail[]) {
    super(422, 'validation_failed', summary(details) || 'Validation failed', details);
  }
}

/** Headers that tell a client where it stands against a rate limit. */
export function rateLimitHeaders(limit: number, remaining: number, resetInSeconds: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, remaining)),
    'X-RateLimit-Reset': String(resetInSeconds),
  };
}

/** A domain pointer (relative to a part of the request, the body by default) as a whole-request pointer. */
function responseDetail({ message, path, in: part = 'body' }: ErrorDetail): ResponseErrorDetail {
  return path === undefined ? { message } : { message, path: `/${part}${path}` };
}

/** What a refusal becomes on the wire: its status, extra headers and the documented body. */
export function errorResponse(error: DomainError | HttpError): {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
} {
  const isDomain = error instanceof DomainError;
  const details = isDomain ? error.details.map(responseDetail) : error.details;
  const body: ErrorBody = { error: error.code, message: error.message, errors: details, ...(isDomain && error.extra) };
  if (details.length > MAX_ERROR_ENTRIES) {
    body.errors = details.slice(0, MAX_ERROR_ENTRIES);
    body.errors_count = details.length;
  }
  let headers: Record<string, string> = {};
  if (error instanceof RateLimited) {
    headers = {
      ...rateLimitHeaders(error.limit, 0, error.resetInSeconds),
      'Retry-After': String(error.resetInSeconds),
    };
  } else if (error instanceof ServerBusy || error instanceof ServiceBusy) {
    headers = { 'Retry-After': String(error.retryAfterSeconds) };
  } else if (error instanceof Unauthorized) {
    headers = { 'WWW-Authenticate': 'Bearer, ApiKey' };
  }
  return { status: isDomain ? STATUS[error.kind] : error.status, headers, body };
}
