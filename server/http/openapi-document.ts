import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';

/** Where `npm run spec:bundle` writes the bundled contract and its rendered docs page. */
export const BUNDLED_SPEC_PATH = fileURLToPath(new URL('../../openapi/dist/openapi.json', import.meta.url));
export const DOCS_PAGE_PATH = fileURLToPath(new URL('../../openapi/dist/docs.html', import.meta.url));
/** Redoc's renderer, copied from `@redocly/cli` by scripts/localize-docs-renderer.ts; the page loads it from us. */
export const DOCS_RENDERER_PATH = fileURLToPath(new URL('../../openapi/dist/redoc.standalone.js', import.meta.url));

export type OpenApiDocument = OpenAPIV3_1.Document;

/** Reads the bundled contract; tells how to produce it when it is missing. */
export function loadOpenApiDocument(file = BUNDLED_SPEC_PATH): OpenApiDocument {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
  } catch (error) {
    throw new Error(`Cannot read the bundled OpenAPI document at ${file}; run "npm run spec:bundle" first`, {
      cause: error,
    });
  }
}
