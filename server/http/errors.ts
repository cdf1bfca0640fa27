/** One problem in a request: what is wrong and, when known, where (a JSON pointer). */
export interface ErrorDetail {
  message: string;
  path?: string;
}

/** The documented error body. */
export interface ErrorBody {
  error: string;
  message: string;
  errors: ErrorDetail[];
  [extra: string]: unknown;
}

/**
 * At most this many entries go into `errors` (the contract's `maxItems`); when more problems were
 * found, `errors_count` carries their number. A body of 100,000 bad items stays a few KB.
 */
export const MAX_ERROR_ENTRIES = 100;

/** An error the client caused or must know about; turned into the documented body by the error middleware. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [{ message }],
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  toJSON(): ErrorBody {
    const body: ErrorBody = { error: this.code, message: this.message, errors: this.details, ...this.extra };
    if (this.details.length > MAX_ERROR_ENTRIES) {
      body.errors = this.details.slice(0, MAX_ERROR_ENTRIES);
      body.errors_count = this.details.length;
    }
    return body;
  }
}

export class BadRequest extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'bad_request', message, details);
  }
}

export class Unauthorized extends AppError {
  static readonly CREDENTIALS = 'Access token or API key is invalid, expired, or missing';
  constructor(message: string = Unauthorized.CREDENTIALS, extra: Record<string, unknown> = {}) {
    super(401, 'unauthorized', message, [{ message }], extra, { 'WWW-Authenticate': 'Bearer, ApiKey' });
  }
}

export class Forbidden extends AppError {
  constructor(code: 'insufficient_scope' | 'feature_disabled' | 'forbidden', message: string) {
    super(403, code, message);
  }

  static scope(required: string): Forbidden {
    return new Forbidden('insufficient_scope', `This action requires the '${required}' scope`);
  }
}

export class NotFound extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }

  /** The one message for a record that is absent or belongs to another family. */
  static entity(name: string): NotFound {
    return new NotFound(`${name} not found`);
  }
}

export class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super(413, 'payload_too_large', `Request body is larger than the limit of ${limit} bytes`);
  }
}

/** The problems joined into one sentence: those listed in the body, then how many more there are. */
function summary(details: ErrorDetail[]): string {
  const listed = details.slice(0, MAX_ERROR_ENTRIES).map((detail) => detail.message);
  const more = details.length - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more problems` : '');
}

export class ValidationFailed extends AppError {
  /** `message` defaults to the problems joined into one sentence. */
  constructor(details: ErrorDetail[], message = summary(details)) {
    super(422, 'validation_failed', message || 'Validation failed', details);
  }

  /** A single problem at one place in the request. */
  static at(path: string, message: string): ValidationFailed {
    return new ValidationFailed([{ path, message }]);
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

export class RateLimited extends AppError {
  /** `what` names the limit when it is not the request rate limit. */
  constructor(limit: number, current: number, resetInSeconds: number, what = 'Rate limit exceeded') {
    const message = `${what}. Try again in ${resetInSeconds} seconds.`;
    super(
      429,
      'rate_limit_exceeded',
      message,
      [{ message }],
      { details: { limit, current, reset_in_seconds: resetInSeconds } },
      {
        ...rateLimitHeaders(limit, 0, resetInSeconds),
        'Retry-After': String(resetInSeconds),
      },
    );
  }
}
