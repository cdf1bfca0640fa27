import { koaBody } from 'koa-body';
import type { Middleware } from 'koa';
import { BadRequest, PayloadTooLarge } from './errors.ts';

/** Parses a JSON body up to `limit` bytes: too large -> 413, unparseable -> 400, in the error shape. */
export function jsonBody(limit: number): Middleware {
  return koaBody({
    json: true,
    jsonLimit: limit,
    // Any JSON text parses (RFC 8259); a body of the wrong shape is then a 422 from the contract, not a 400.
    jsonStrict: false,
    text: false,
    urlencoded: false,
    multipart: false,
    onError(error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLarge(limit);
      throw new BadRequest(`Request body is not valid JSON: ${error.message}`);
    },
  });
}
