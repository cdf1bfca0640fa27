import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_RENDERER_PATH } from '../../server/http/openapi-document.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Issue 9, item 19: the docs page works offline. A real browser opens GET /docs with every request
// that would leave the machine refused, and the page still renders the operation list.

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Playwright downloads no browser here. */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`test/api/docs-page.test.ts skipped: no ${CHROMIUM} (apt-get install --no-install-recommends chromium)`);
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('GET /docs', () => {
  it('allows the page nothing from another host', async () => {
    const response = await fetch(`${server.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).not.toMatch(/https?:|\*/);
  });

  it('serves the renderer as a script that is revalidated, not fetched again', async () => {
    const first = await fetch(`${server.baseUrl}/docs/redoc.standalone.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(await first.text()).toBe(readFileSync(DOCS_RENDERER_PATH, 'utf8'));

    const etag = first.headers.get('etag') ?? '';
    expect(await statusOf(`${server.baseUrl}/docs/redoc.standalone.js`, { 'If-None-Match': etag })).toBe(304);
  });
});

describe.skipIf(!hasChromium)('GET /docs in a browser', () => {
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    profile = mkdtempSync(path.join(tmpdir(), 'docs-page-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('renders the operation list, loading everything from our own server', async () => {
    const origin = new URL(server.baseUrl).origin;
    const local = (url: string) => /^(data|blob):/.test(url) || new URL(url).origin === origin;
    const requested: string[] = [];
    // As in a locked-down deployment: a request for another host fails (and is recorded below).
    await browser.route('**/*', (route) =>
      local(route.request().url()) ? route.continue() : route.abort('internetdisconnected'),
    );
    const page = await browser.newPage();
    page.on('request', (request) => requested.push(request.url()));

    // The tag in the fragment opens its group in the sidebar, once the renderer has hydrated the
    // prerendered page; without the renderer the operations are not on the page at all.
    await page.goto(`${server.baseUrl}/docs#/transactions`);
    const operations = ['List transactions', 'Create a transaction', 'Delete a transaction'];
    const shown = await Promise.all(
      operations.map((name) =>
        page
          .getByText(name, { exact: true })
          .first()
          .waitFor({ state: 'visible', timeout: 20_000 })
          .then(
            () => name,
            () => `${name}: not shown`,
          ),
      ),
    );

    expect(requested.filter((url) => !local(url))).toEqual([]);
    expect(requested).toContain(`${origin}/docs/redoc.standalone.js`);
    expect(shown).toEqual(operations);
  });
});

/** The status of a plain GET (fetch would add `Cache-Control: no-cache` to a conditional request). */
function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).on('error', reject);
  });
}
