import coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import { MalformedBody, PayloadTooLarge, RequestInvalid, UnsupportedMediaType } from './errors.ts';
import { readJson, type JsonRead } from './request-check.ts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (`jsonBody`), or undefined when the request had none. */
    body?: unknown;
  }
}

/** The media types read as JSON: `application/json` and any `+json` type, with any charset. */
const JSON_TYPES = ['application/json', '+json'];

/** DELETE too: an operation whose contract gives it a body gets it read, whatever its method. */
const READ_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether the request carries a body at all (an empty one is no body: "required" says it is missing). */
function sendsBody(ctx: Context): boolean {
  return ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length') || 0) > 0;
}

/**
 * The bytes of a JSON body, up to `limit` (inflated when sent compressed): not declared JSON ->
 * 415, too large -> 413, cut short -> 400, all in the error shape; undefined when the request is
 * not read as JSON (no body, an empty one, or a method that takes none).
 */
export async function jsonBytes(ctx: Context, limit: number): Promise<Buffer | undefined> {
  // Otherwise the body would go unread and the request look as if it had none.
  if (sendsBody(ctx) && !ctx.is(JSON_TYPES)) throw new UnsupportedMediaType(ctx.get('content-type'));
  if (!READ_METHODS.has(ctx.method) || !ctx.is(JSON_TYPES)) return undefined;
  let bytes: Buffer;
  try {
    // Without an encoding, raw-body hands the bytes over undecoded.
    bytes = (await coBody.text(ctx, { limit, encoding: false as never })) as Buffer;
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw new PayloadTooLarge(limit);
    throw new MalformedBody(`Request body is not valid JSON: ${(error as Error).message}`);
  }
  // Clients that declare JSON on every request send it with no body too: that is no body.
  return bytes.byteLength ? bytes : undefined;
}

/** The refusal of a body that cannot be read (400) or breaks the contract (422). */
export function refuse(found: Extract<JsonRead, { outcome: 'malformed' | 'invalid' }>): never {
  if (found.outcome === 'malformed') throw new MalformedBody(found.message);
  throw new RequestInvalid(found.problems);
}

/**
 * Parses a JSON body up to `limit` bytes: not declared JSON -> 415, too large -> 413, unparseable
 * -> 400, nested too deep or holding an absurdly long array -> 422, all in the error shape. The
 * shape is checked before any recursive walk of the body (validation, NUL check) can overflow the
 * stack.
 */
export function jsonBody(limit: number): Middleware {
  return async (ctx, next) => {
    const bytes = await jsonBytes(ctx, limit);
    if (bytes) {
      const read = readJson(bytes);
      if (read.outcome !== 'parsed') refuse(read);
      ctx.request.body = read.body;
    }
    return next();
  };
}
