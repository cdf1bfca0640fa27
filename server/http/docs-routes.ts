import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import type { Context } from 'koa';
import { SERVICE_PATHS } from './api-index.ts';
import { DOCS_PAGE_PATH, DOCS_RENDERER_PATH } from './openapi-document.ts';

/** Where the docs page loads Redoc's renderer from: our own server, never a CDN. */
export const DOCS_RENDERER_URL = '/docs/redoc.standalone.js';

/**
 * What the docs page may load: itself and the renderer from this server, inline scripts and styles
 * (the contract, the call that hydrates the page and the prerendered styles are inline), images
 * and fonts as data: URLs, requests to this server only (the API answers no cross-origin call from
 * a browser anyway). Nothing from another host, so the page works offline and tells no one who
 * reads it, even if a later Redoc tried.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

interface StaticFile {
  body: Buffer;
  etag: string;
}

/** `GET /docs` and the renderer it loads, both built by `npm run spec:bundle` and read once here. */
export function docsRoutes(): Router {
  const page = readBuilt(DOCS_PAGE_PATH);
  const renderer = readBuilt(DOCS_RENDERER_PATH);
  const router = new Router();
  router.get(SERVICE_PATHS.docs, (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    send(ctx, page, 'text/html');
  });
  router.get(DOCS_RENDERER_URL, (ctx) => send(ctx, renderer, 'text/javascript'));
  return router;
}

/**
 * Revalidated on every use (`no-cache` with an ETag, so a repeat view costs a 304): the page names
 * the renderer by a fixed URL with its integrity hash, and a renderer cached past an upgrade would
 * fail that check and leave the page blank.
 */
function send(ctx: Context, file: StaticFile, type: string): void {
  ctx.type = type;
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.etag = file.etag;
  ctx.body = file.body;
  if (ctx.fresh) ctx.status = 304; // Koa drops the body of a 304
}

function readBuilt(file: string): StaticFile {
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (error) {
    throw new Error(`Cannot read ${file}; run "npm run spec:bundle" first`, { cause: error });
  }
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}
