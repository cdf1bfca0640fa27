import type { Context } from 'koa';
import { SERVICE_PATHS } from './api-index.ts';

/** The API's paths: answers there hold a household's private data. */
const PRIVATE = /^\/(api|auth)\//;

/**
 * Headers every answer carries, errors included: `nosniff` so no browser reads a JSON answer as
 * something else, and `no-store` on the API so no browser or shared cache keeps a household's data
 * (docs/api-decisions.md#response-headers). Routes that set their own caching (the docs page)
 * keep it.
 */
export function setResponseHeaders(ctx: Context): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (PRIVATE.test(ctx.path) && ctx.path !== SERVICE_PATHS.openapi) ctx.set('Cache-Control', 'no-store');
}
