/**
 * The last step of `npm run spec:bundle`: the docs page that `redocly build-docs` wrote loads Redoc's
 * renderer from our server (server/http/docs-routes.ts) instead of Redocly's CDN, so it works offline.
 * Copies the renderer that `@redocly/cli` ships next to the page and rewrites the page to load it;
 * fails, and says why, when the page asks for another version than the one installed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DOCS_RENDERER_URL } from '../server/http/docs-routes.ts';
import { DOCS_PAGE_PATH, DOCS_RENDERER_PATH } from '../server/http/openapi-document.ts';
import { DocsRendererError, localRenderer } from './docs-renderer/local-renderer.ts';

/** The file that `redocly build-docs` hashes for the page's integrity and inlines with --inlineBundle. */
const SHIPPED_RENDERER = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'lib/chunks/redoc.standalone.js',
);

try {
  const rendererText = read(SHIPPED_RENDERER, '@redocly/cli no longer ships its renderer at this path');
  const local = localRenderer(read(DOCS_PAGE_PATH, 'run `npm run spec:bundle`'), rendererText, DOCS_RENDERER_URL);
  writeFileSync(DOCS_RENDERER_PATH, local.renderer);
  writeFileSync(DOCS_PAGE_PATH, local.page);
  console.log(
    `docs page loads Redoc ${local.version} from ${DOCS_RENDERER_URL} (${path.relative(process.cwd(), DOCS_RENDERER_PATH)})`,
  );
} catch (error) {
  if (!(error instanceof DocsRendererError)) throw error;
  console.error(`localize-docs-renderer: ${error.message}`);
  process.exitCode = 1;
}

function read(file: string, hint: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new DocsRendererError(`cannot read ${file} (${hint})`, { cause: error });
  }
}
