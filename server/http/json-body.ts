import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Context, Middleware } from 'koa';
import { MalformedBody, PayloadTooLarge, RequestInvalid, UnsupportedMediaType } from './errors.ts';
import { jsonShapeProblem } from './json-shape.ts';

/** The media types read as JSON: `application/json` and any `+json` type, with any charset. */
const JSON_TYPES = ['application/json', '+json'];

/** Whether the request carries a body at all (an empty one is no body: "required" says it is missing). */
function sendsBody(ctx: Context): boolean {
  return ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length') || 0) > 0;
}

/**
 * Parses a JSON body up to `limit` bytes: not declared JSON -> 415, too large -> 413, unparseable
 * -> 400, nested too deep or holding an absurdly long array -> 422, all in the error shape. The
 * shape is checked here, before any recursive walk of the body (validation, NUL check) can
 * overflow the stack.
 */
export function jsonBody(limit: number): Middleware {
  const parse = koaBody({
    json: true,
    jsonTypes: JSON_TYPES,
    // DELETE too: an operation whose contract gives it a body gets it read, whatever its method.
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    jsonLimit: limit,
    // Any JSON text parses (RFC 8259); a body of the wrong shape is then a 422 from the contract, not a 400.
    jsonStrict: false,
    text: false,
    urlencoded: false,
    multipart: false,
    onError(error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLarge(limit);
      throw new MalformedBody(`Request body is not valid JSON: ${error.message}`);
    },
  });
  return (ctx, next) => {
    // Otherwise the body would go unread and the request look as if it had none.
    if (sendsBody(ctx) && !ctx.is(JSON_TYPES)) throw new UnsupportedMediaType(ctx.get('content-type'));
    return parse(ctx, () => {
      const problem = jsonShapeProblem(ctx.request.body);
      if (problem) throw new RequestInvalid([problem]);
      return next();
    });
  };
}
