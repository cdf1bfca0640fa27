import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Middleware } from 'koa';
import { MalformedBody, PayloadTooLarge, RequestInvalid } from './errors.ts';
import { jsonShapeProblem } from './json-shape.ts';

/**
 * Parses a JSON body up to `limit` bytes: too large -> 413, unparseable -> 400, nested too deep or
 * holding an absurdly long array -> 422, all in the error shape. The shape is checked here, before
 * any recursive walk of the body (validation, NUL check) can overflow the stack.
 */
export function jsonBody(limit: number): Middleware {
  const parse = koaBody({
    json: true,
    jsonLimit: limit,
    // Any JSON text parses (RFC 8259); a body of the wrong shape is then a 422 from the contract, not a 400.
    jsonStrict: false,
    text: false,
    urlencoded: false,
    multipart: false,
    // koa-body reads POST, PUT and PATCH bodies only; deleting the signed-in user sends a confirmation.
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError(error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw new PayloadTooLarge(limit);
      throw new MalformedBody(`Request body is not valid JSON: ${error.message}`);
    },
  });
  return (ctx, next) =>
    parse(ctx, () => {
      const problem = jsonShapeProblem(ctx.request.body);
      if (problem) throw new RequestInvalid([problem]);
      return next();
    });
}
