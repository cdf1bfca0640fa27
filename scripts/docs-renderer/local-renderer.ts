import { createHash } from 'node:crypto';

/**
 * `redocly build-docs` writes a page that imports Redoc's renderer from Redocly's CDN:
 * `import { hydrate } from "https://cdn.redocly.com/redoc/v<version>/bundles/redoc.standalone.js"`,
 * plus a `<link rel="modulepreload">` of the same URL with its `integrity`.
 */
const CDN_RENDERER = /https:\/\/cdn\.redocly\.com\/redoc\/v([^/"'\s]+)\/bundles\/redoc\.standalone\.js/g;

/** The version line in the header comment of `redoc.standalone.js`: ` * Version: 3.0.1`. */
const RENDERER_VERSION = /^\s*\*\s*Version:\s*(\S+)\s*$/m;

/**
 * Remote images the renderer itself loads, and what takes their place. Redoc shows Redocly's logo
 * under "API docs by" in the sidebar, fetched from this CDN on every page view; a one-word SVG
 * keeps the attribution without the request.
 */
const RENDERER_REMOTE_IMAGES: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': wordmark('Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': wordmark('R'),
};

/** The host those images came from: the renderer must not name it once they are replaced. */
const RENDERER_CDN = 'https://cdn.redoc.ly/';

/** A page or renderer this step does not understand; the message says what differs. */
export class DocsRendererError extends Error {}

export interface LocalRenderer {
  /** The page, loading the renderer from `url` with the `integrity` of `renderer` below. */
  page: string;
  /** The renderer to serve at `url`: the local file with its remote images replaced. */
  renderer: string;
  /** Redoc's version, the same in the page and in the local file. */
  version: string;
}

/**
 * Points a page from `redocly build-docs` at a renderer served from `url` instead of Redocly's CDN.
 * `renderer` is the text of the `redoc.standalone.js` that `@redocly/cli` ships (and hashes for
 * the page's `integrity`). Throws `DocsRendererError` unless the page asks for exactly the
 * version and bytes of that file, so an upgrade of the CLI cannot leave a page that loads
 * nothing or something else.
 */
export function localRenderer(page: string, renderer: string, url: string): LocalRenderer {
  const wanted = [...new Set(Array.from(page.matchAll(CDN_RENDERER), (match) => match[1] ?? ''))];
  const version = wanted[0];
  if (version === undefined) {
    throw new DocsRendererError(
      'the docs page loads no redoc.standalone.js from cdn.redocly.com: `redocly build-docs` now loads ' +
        'its renderer differently (or the page was already rewritten: run `npm run spec:bundle`)',
    );
  }
  if (wanted.length > 1) {
    throw new DocsRendererError(`the docs page loads several Redoc versions from the CDN: ${wanted.join(', ')}`);
  }
  const local = RENDERER_VERSION.exec(renderer.slice(0, 1000))?.[1];
  if (local === undefined) {
    throw new DocsRendererError('the local redoc.standalone.js has no "Version:" line in its header');
  }
  if (local !== version) {
    throw new DocsRendererError(
      `the docs page wants Redoc ${version} from the CDN but @redocly/cli ships Redoc ${local}`,
    );
  }
  const expected = integrity(renderer);
  for (const [, found] of page.matchAll(/integrity="([^"]*)"/g)) {
    if (found !== expected) {
      throw new DocsRendererError(
        `the docs page expects a renderer with integrity ${found}, the local Redoc ${local} has ${expected}`,
      );
    }
  }

  let served = renderer;
  for (const [remote, replacement] of Object.entries(RENDERER_REMOTE_IMAGES)) {
    served = served.replaceAll(remote, replacement);
  }
  if (served.includes(RENDERER_CDN)) {
    throw new DocsRendererError(`Redoc ${local} loads more from ${RENDERER_CDN} than the logos this step replaces`);
  }
  const localPage = page.replaceAll(CDN_RENDERER, url).replaceAll(expected, integrity(served));
  if (localPage.includes('https://cdn.redocly.com/')) {
    throw new DocsRendererError('the docs page still loads something else from cdn.redocly.com');
  }
  return { page: localPage, renderer: served, version };
}

/** The Subresource Integrity value of a script: what `integrity="..."` must say for it to run. */
function integrity(script: string): string {
  return `sha384-${createHash('sha384').update(script).digest('base64')}`;
}

/** A data: URL of an SVG showing one word; percent-encoded, so it fits in any JavaScript string literal. */
function wordmark(word: string): string {
  const svg =
    `<svg xmlns='http://www.w3.org/2000/svg' width='${12 + word.length * 9}' height='20'>` +
    `<text x='2' y='15' font-family='sans-serif' font-size='14' font-weight='600' fill='#0044D4'>${word}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
