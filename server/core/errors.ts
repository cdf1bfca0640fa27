/**
 * One problem in an input: what is wrong and, when known, where. `path` is a JSON pointer into the
 * request body (`/transaction/amount`) unless `in` names another part of the request; the HTTP
 * layer turns it into the documented pointer (`/body/transaction/amount`).
 */
export interface ErrorDetail {
  message: string;
  path?: string;
  in?: 'body' | 'query' | 'path';
}

/**
 * What kind of refusal an error is. The HTTP layer maps each kind to one status; nothing below it
 * knows about statuses.
 */
export type ErrorKind =
  /** The input cannot be read at all (a blank required code, missing device information). */
  | 'bad_request'
  /** No valid credential, or the credential's user may not sign in. */
  | 'unauthorized'
  /** The caller is known but may not do this. */
  | 'forbidden'
  /** The record does not exist or belongs to another family. */
  | 'not_found'
  /** The input is readable but breaks a rule. */
  | 'invalid'
  /** A counter of the caller is spent. */
  | 'rate_limited'
  /** The server has no room for the work right now; the same request may succeed shortly. */
  | 'busy';

/** An error the client caused or must know about, with its machine code and the problems found. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [{ message }],
    /** Members the documented body carries beyond `error`, `message` and `errors`. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequest extends DomainError {
  constructor(message: string, details?: ErrorDetail[], code = 'bad_request') {
    super('bad_request', code, message, details);
  }
}

export class Unauthorized extends DomainError {
  static readonly CREDENTIALS = 'Access token or API key is invalid, expired, or missing';
  constructor(message: string = Unauthorized.CREDENTIALS, extra: Record<string, unknown> = {}) {
    super('unauthorized', 'unauthorized', message, [{ message }], extra);
  }
}

export class Forbidden extends DomainError {
  constructor(code: 'insufficient_scope' | 'feature_disabled' | 'forbidden', message: string) {
    super('forbidden', code, message);
  }

  static scope(required: string): Forbidden {
    return new Forbidden('insufficient_scope', `This action requires the '${required}' scope`);
  }
}

export class NotFound extends DomainError {
  constructor(message: string) {
    super('not_found', 'not_found', message);
  }

  /** The one message for a record that is absent or belongs to another family. */
  static entity(name: string): NotFound {
    return new NotFound(`${name} not found`);
  }
}

/**
 * At most this many problems are listed (the contract's `maxItems` of `errors`); the message
 * says how many more there are, so a body of 100,000 bad items stays a few KB.
 */
export const MAX_ERROR_ENTRIES = 100;

/** The problems joined into one sentence: those listed in the body, then how many more there are. */
export function summary(details: readonly { message: string }[]): string {
  const listed = details.slice(0, MAX_ERROR_ENTRIES).map((detail) => detail.message);
  const more = details.length - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more problems` : '');
}

export class ValidationFailed extends DomainError {
  /** `message` defaults to the problems joined into one sentence. */
  constructor(details: ErrorDetail[], message = summary(details), code = 'validation_failed') {
    super('invalid', code, message || 'Validation failed', details);
  }

  /** A single problem at one place of the request body. */
  static at(path: string, message: string): ValidationFailed {
    return new ValidationFailed([{ path, message }]);
  }
}

/** A counter of the caller (requests, sign-in attempts, chat messages) is spent for this window. */
export class RateLimited extends DomainError {
  /** `what` names the limit when it is not the request rate limit. */
  constructor(
    readonly limit: number,
    readonly current: number,
    readonly resetInSeconds: number,
    what = 'Rate limit exceeded',
  ) {
    const message = `${what}. Try again in ${resetInSeconds} seconds.`;
    super('rate_limited', 'rate_limit_exceeded', message, [{ message }], {
      details: { limit, current, reset_in_seconds: resetInSeconds },
    });
  }
}

/** Work that holds scarce resources (password hashes) found no free slot in time: not the caller's fault. */
export class ServerBusy extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = `The server is busy. Try again in ${retryAfterSeconds} seconds.`,
  ) {
    super('busy', 'server_busy', message);
  }
}

/**
 * The problems of many checks gathered into one ValidationFailed, so that a body of many items
 * is answered with every problem at its pointer instead of only the first.
 */
export class ProblemList {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string): void {
    this.details.push({ path, message });
  }

  /** What `read` returns; undefined when it refused the input, its problems then noted. */
  take<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      this.details.push(...error.details);
      return undefined;
    }
  }

  /** Refuses the input when a problem was noted. */
  throwIfAny(): void {
    if (this.details.length) throw new ValidationFailed(this.details);
  }
}
