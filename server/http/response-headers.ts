import type { Context } from 'koa';
import { answerJson } from '../core/exact-json.ts';
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
  ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
  if (PRIVATE.test(ctx.path) && ctx.path !== SERVICE_PATHS.openapi) ctx.res.setHeader('Cache-Control', 'no-store');
}

/**
 * Sets headers whose values are plain strings straight on Node's response: Koa's `ctx.set` builds
 * arrays for every call, which every request paid for several times (bench/README.md#api).
 */
export function setHeaders(ctx: Context, headers: Record<string, string>): void {
  for (const name in headers) ctx.res.setHeader(name, headers[name]!);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON answer's body, as its text: integers past 2^53 written as their digits
 * (core/exact-json.ts), and the media type set before the body, so that Koa does not look `json`
 * up in its table of media types for every answer.
 */
export function setJsonBody(ctx: Context, body: unknown): void {
  setJsonText(ctx, answerJson(body));
}

/** A JSON answer's body from its text (an answer kept for an Idempotency-Key). */
export function setJsonText(ctx: Context, text: string): void {
  ctx.res.setHeader('Content-Type', JSON_TYPE);
  ctx.body = text;
}
