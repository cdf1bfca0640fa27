import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DocsRendererError, localRenderer } from '../../scripts/docs-renderer/local-renderer.ts';

const cdn = (version: string) => `https://cdn.redocly.com/redoc/v${version}/bundles/redoc.standalone.js`;
const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
const renderer = (version: string, body = 'export{hydrate};') =>
  `/**\n* @license MIT\n* Version: ${version}\n**/\n${body}`;

/** The shape `redocly build-docs` writes: a modulepreload with integrity, and an import of the same URL. */
function page(version: string, script: string): string {
  return (
    `<head><link rel="modulepreload" href="${cdn(version)}" integrity="${sri(script)}" crossorigin="anonymous" /></head>` +
    `<body><script type="module">import { hydrate } from "${cdn(version)}";</script></body>`
  );
}

describe('localRenderer', () => {
  it('points the page at the local URL, with the integrity of the renderer it will get', () => {
    const script = renderer('3.0.1');
    const local = localRenderer(page('3.0.1', script), script, '/docs/redoc.standalone.js');
    expect(local.version).toBe('3.0.1');
    expect(local.renderer).toBe(script);
    expect(local.page).not.toContain('cdn.redocly.com');
    expect(local.page).toContain('href="/docs/redoc.standalone.js"');
    expect(local.page).toContain('import { hydrate } from "/docs/redoc.standalone.js"');
    expect(local.page).toContain(`integrity="${sri(script)}"`);
  });

  it("replaces the renderer's remote logo and updates the integrity to match", () => {
    const script = renderer(
      '3.0.1',
      'src:e?`https://cdn.redoc.ly/redoc/logo-mini-full.svg`:`https://cdn.redoc.ly/redoc/logo-mini.svg`',
    );
    const local = localRenderer(page('3.0.1', script), script, '/r.js');
    expect(local.renderer).not.toContain('https://');
    expect(local.renderer).toContain('data:image/svg+xml,');
    expect(local.page).toContain(`integrity="${sri(local.renderer)}"`);
  });

  it.each([
    [
      'a page without the CDN renderer',
      '<script type="module">import { hydrate } from "/r.js";</script>',
      renderer('3.0.1'),
      /loads no redoc.standalone.js/,
    ],
    [
      'another version in the page',
      page('3.0.2', renderer('3.0.1')),
      renderer('3.0.1'),
      /wants Redoc 3.0.2 .* ships Redoc 3.0.1/,
    ],
    [
      'two versions in the page',
      page('3.0.1', renderer('3.0.1')) + page('3.0.2', renderer('3.0.1')),
      renderer('3.0.1'),
      /several Redoc versions from the CDN: 3.0.1, 3.0.2/,
    ],
    ['a renderer without a version', page('3.0.1', 'x'), 'export{hydrate};', /no "Version:" line/],
    [
      'other bytes than the page was built for',
      page('3.0.1', renderer('3.0.1', 'old')),
      renderer('3.0.1'),
      /expects a renderer with integrity/,
    ],
    [
      'another asset from the CDN',
      page('3.0.1', renderer('3.0.1', '`https://cdn.redoc.ly/new.svg`')),
      renderer('3.0.1', '`https://cdn.redoc.ly/new.svg`'),
      /loads more from https:\/\/cdn.redoc.ly\//,
    ],
    [
      'another resource from the CDN in the page',
      page('3.0.1', renderer('3.0.1')) + '<link rel="stylesheet" href="https://cdn.redocly.com/f.css">',
      renderer('3.0.1'),
      /still loads something else/,
    ],
  ])('refuses %s', (_case, html, script, message) => {
    expect(() => localRenderer(html, script, '/r.js')).toThrow(DocsRendererError);
    expect(() => localRenderer(html, script, '/r.js')).toThrow(message);
  });
});
