import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeShopSchema } from '../acme-shop-schema.ts';
import { LspClient, type ClientSettings } from './lsp-client.ts';

/** An entry of the acme release: no problem against acme, `model-unknown` against the bundled schema. */
const acmeBlueprint = 'version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers:\n      sku: x\n';
const MODELINE = '# yaml-language-server: $schema=';
const secret = 'secret-text-of-the-file';

describe.skipIf(process.platform === 'win32')('what a schema modeline may name', () => {
  let client: LspClient;
  let http: Server;
  let schemaUrl = '';
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'blueprint-modeline-'));
  const outside = mkdtempSync(path.join(os.tmpdir(), 'blueprint-modeline-outside-'));
  const inWorkspace = (name: string) => path.join(workspace, name);
  writeFileSync(inWorkspace('acme.schema.json'), JSON.stringify(acmeShopSchema));
  writeFileSync(path.join(outside, 'acme.schema.json'), JSON.stringify(acmeShopSchema));
  writeFileSync(inWorkspace('package.json'), '{ "name": "not-a-schema" }');
  writeFileSync(inWorkspace('broken.json'), `{ "title": "${secret}`);
  writeFileSync(inWorkspace('large.json'), '');
  truncateSync(inWorkspace('large.json'), 6 * 1024 * 1024);
  symlinkSync('/etc/passwd', inWorkspace('passwd.json'));
  mkdirSync(inWorkspace('pipes'));
  const pipes = [0, 1, 2, 3, 4, 5].map((n) => inWorkspace(`pipes/${n}.json`));
  for (const pipe of [...pipes, path.join(outside, 'pipe.json')]) execFileSync('mkfifo', [pipe]);

  beforeAll(async () => {
    http = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(acmeShopSchema));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    schemaUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/acme.schema.json`;
    client = new LspClient();
    await client.initialize(pathToFileURL(workspace).href);
  });
  afterAll(async () => {
    expect(await client.stop()).toBe(0);
    await new Promise((resolve) => http.close(resolve));
  });

  let opened = 0;
  /** Opens a blueprint of the acme release whose modeline names `location`; its diagnostics, closed again. */
  const diagnosticsFor = async (location: string, timeoutMs?: number): Promise<Diagnostic[]> => {
    const uri = pathToFileURL(inWorkspace(`doc-${opened++}.yaml`)).href;
    const since = client.diagnostics.length;
    await client.open(uri, `${MODELINE}${location}\n${acmeBlueprint}`);
    const diagnostics = await client.waitForDiagnostics(uri, () => true, since, timeoutMs);
    await client.close(uri);
    return diagnostics;
  };

  /** The one modeline diagnostic of a refused location, after checking what surrounds it. */
  const refusal = async (location: string, settings: ClientSettings = {}): Promise<string> => {
    await client.changeSettings(settings);
    const diagnostics = await diagnosticsFor(location);
    // Checked against the bundled schema instead, which does not know the acme model.
    expect(diagnostics.map((item) => item.code)).toEqual(['schema-unavailable', 'model-unknown']);
    const [onModeline] = diagnostics;
    expect(onModeline!.range).toEqual({
      start: { line: 0, character: MODELINE.length },
      end: { line: 0, character: MODELINE.length + location.length },
    });
    expect(onModeline!.severity).toBe(1);
    const { message } = onModeline!;
    if (typeof message !== 'string') throw new Error('the message is markup, not text');
    expect(message).toContain(location);
    expect(message).toContain('checked against the bundled schema instead');
    return message;
  };

  it('is any file under the workspace folder, relative to the document or absolute', async () => {
    await client.changeSettings({});
    expect(await diagnosticsFor('./acme.schema.json')).toEqual([]);
    expect(await diagnosticsFor(inWorkspace('acme.schema.json'))).toEqual([]);
    expect(await diagnosticsFor(pathToFileURL(inWorkspace('acme.schema.json')).href)).toEqual([]);
  });

  it.each([
    ['/etc/passwd', /is outside the workspace folders/],
    [path.join(outside, 'acme.schema.json'), /is outside the workspace folders/],
    ['../../../../../../../../etc/hostname', /is outside the workspace folders/],
    ['./passwd.json', /is outside the workspace folders/], // a link to /etc/passwd
    [path.join(outside, 'pipe.json'), /is outside the workspace folders/],
    [path.join(outside, 'missing.json'), /is outside the workspace folders/],
    ['./pipes/0.json', /is not a regular file \(it is a named pipe\)/],
    ['./pipes', /is not a regular file \(it is a directory\)/],
    ['./large.json', /is larger than 5 MiB/],
    ['./broken.json', /is not valid JSON/],
    ['./package.json', /is not a blueprint schema/],
    ['./missing.json', /does not exist/],
    ['ftp://127.0.0.1/acme.schema.json', /is not a file or an http\(s\) URL/],
  ])('is not %s: one diagnostic on the modeline, then the bundled schema', async (location, reason) => {
    const message = await refusal(location);
    expect(message).toMatch(reason);
    expect(message).not.toContain(secret);
    expect(message).not.toContain('root:');
  });

  it('is not a URL unless blueprint.modeline.allowDownload is on', async () => {
    expect(await refusal(schemaUrl)).toMatch(/downloading .* is off \(setting blueprint\.modeline\.allowDownload\)/);
    await client.changeSettings({ modeline: { allowDownload: true } });
    expect(await diagnosticsFor(schemaUrl)).toEqual([]);
    await client.changeSettings({});
  });

  it('may be under blueprint.modeline.allowedPaths, which are still read as regular files only', async () => {
    const settings = { modeline: { allowedPaths: [outside, '/etc', '/dev'] } };
    await client.changeSettings(settings);
    expect(await diagnosticsFor(path.join(outside, 'acme.schema.json'))).toEqual([]);
    expect(await refusal(path.join(outside, 'pipe.json'), settings)).toMatch(
      /not a regular file \(it is a named pipe\)/,
    );
    expect(await refusal('/dev/zero', settings)).toMatch(/not a regular file \(it is a character device\)/);
    const passwd = await refusal('/etc/passwd', settings);
    expect(passwd).toMatch(/is not valid JSON/);
    expect(passwd).not.toContain('root');
    await client.changeSettings({});
  });

  it('does not stall the diagnostics of other documents when it names named pipes', async () => {
    await client.changeSettings({});
    // More pipes than libuv has file-system threads (4): each would hold one if it were opened.
    const refused = await Promise.all(pipes.map((pipe) => diagnosticsFor(pipe, 5_000)));
    for (const diagnostics of refused) expect(diagnostics[0]!.message).toMatch(/named pipe/);
    // A schema not loaded yet needs a file read: it still gets one.
    writeFileSync(inWorkspace('after-pipes.schema.json'), JSON.stringify(acmeShopSchema));
    expect(await diagnosticsFor('./after-pipes.schema.json', 5_000)).toEqual([]);
  });

  it('is refused in Validate Workspace too, for files that are not open', async () => {
    const file = inWorkspace('not-open.yaml');
    writeFileSync(file, `${MODELINE}/etc/passwd\n${acmeBlueprint}`);
    const uri = pathToFileURL(file).href;
    const since = client.diagnostics.length;
    await client.connection.sendRequest('blueprint/validateFiles', { uris: [uri] });
    const diagnostics = await client.waitForDiagnostics(uri, () => true, since);
    expect(diagnostics.map((item) => item.code)).toEqual(['schema-unavailable', 'model-unknown']);
  });

  it('skips a named pipe in Validate Workspace without waiting on it, and checks the other files', async () => {
    const pipe = inWorkspace('pipe.blueprint.yaml');
    execFileSync('mkfifo', [pipe]);
    const file = inWorkspace('beside-the-pipe.yaml');
    writeFileSync(file, acmeBlueprint);
    const uris = [pathToFileURL(pipe).href, pathToFileURL(file).href];
    const since = client.diagnostics.length;
    const answer = await client.connection.sendRequest('blueprint/validateFiles', { uris });
    expect(answer).toEqual({ files: 1, problems: 1 });
    const diagnostics = await client.waitForDiagnostics(uris[1]!, () => true, since);
    expect(diagnostics.map((item) => item.code)).toEqual(['model-unknown']);
    expect(client.diagnostics.slice(since).some((published) => published.uri === uris[0])).toBe(false);
    expect(client.logs.join('\n')).toMatch(/skipped .*pipe\.blueprint\.yaml: .*named pipe/);
  });

  it("leaves the user's blueprint.schema setting free to name a file anywhere", async () => {
    await client.changeSettings({ schema: path.join(outside, 'acme.schema.json') });
    const uri = pathToFileURL(inWorkspace('by-setting.yaml')).href;
    const since = client.diagnostics.length;
    await client.open(uri, acmeBlueprint);
    expect(await client.waitForDiagnostics(uri, () => true, since)).toEqual([]);
    await client.close(uri);
    await client.changeSettings({});
  });
});

describe('the workspace folders a modeline may name files in', () => {
  it('follow the folders the client adds and removes', async () => {
    const [first, second] = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'blueprint-folder-')));
    writeFileSync(path.join(second!, 'acme.schema.json'), JSON.stringify(acmeShopSchema));
    const client = new LspClient();
    await client.initialize(null, undefined, [pathToFileURL(first!).href]);
    let opened = 0;
    const codes = async () => {
      // A new document each time: the empty diagnostics of a closed one may still be on their way.
      const uri = pathToFileURL(path.join(first!, `doc-${opened++}.yaml`)).href;
      const since = client.diagnostics.length;
      await client.open(uri, `${MODELINE}${path.join(second!, 'acme.schema.json')}\n${acmeBlueprint}`);
      const diagnostics = await client.waitForDiagnostics(uri, () => true, since);
      await client.close(uri);
      return diagnostics.map((item) => item.code);
    };
    expect(await codes()).toEqual(['schema-unavailable', 'model-unknown']);
    await client.changeWorkspaceFolders([pathToFileURL(second!).href]);
    expect(await codes()).toEqual([]);
    await client.changeWorkspaceFolders([], [pathToFileURL(second!).href]);
    expect(await codes()).toEqual(['schema-unavailable', 'model-unknown']);
    expect(await client.stop()).toBe(0);
  });
});
