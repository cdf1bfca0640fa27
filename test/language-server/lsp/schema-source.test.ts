import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeShopSchema } from '../acme-shop-schema.ts';
import { LspClient } from './lsp-client.ts';

/** A release with another model set: the bundled schema's models are unknown to it. */
const otherSchema = acmeShopSchema;

/** One entry identified by a field its model has (in the release it belongs to). */
const blueprint = (model: string) =>
  `version: 1\nentries:\n  - model: ${model}\n    identifiers:\n      ${model.startsWith('acme') ? 'sku' : 'slug'}: x\n`;

describe('where the schema comes from', () => {
  let client: LspClient;
  let http: Server;
  let schemaUrl = '';
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-schema-source-'));
  writeFileSync(path.join(folder, 'acme.schema.json'), JSON.stringify(otherSchema));

  beforeAll(async () => {
    http = createServer((request, response) => {
      if (request.url !== '/acme.schema.json') return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(otherSchema));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    schemaUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/acme.schema.json`;
    client = new LspClient();
    await client.initialize(pathToFileURL(folder).href);
  });
  afterAll(async () => {
    await client.stop();
    await new Promise((resolve) => http.close(resolve));
  });

  const codesFor = async (name: string, text: string) => {
    const uri = pathToFileURL(path.join(folder, name)).href;
    const since = client.diagnostics.length;
    await client.open(uri, text);
    const diagnostics = await client.waitForDiagnostics(uri, () => true, since);
    await client.close(uri);
    return diagnostics.map((item) => item.code);
  };

  it('is the bundled release by default', async () => {
    expect(await codesFor('bundled.yaml', blueprint('idp_flows.flow'))).toEqual([]);
    expect(await codesFor('bundled-other.yaml', blueprint('acme_shop.widget'))).toEqual(['model-unknown']);
  });

  it('is the one a modeline names, relative to the file', async () => {
    const text = `# yaml-language-server: $schema=./acme.schema.json\n${blueprint('acme_shop.widget')}`;
    expect(await codesFor('modeline.yaml', text)).toEqual([]);
    const info = await client.connection.sendRequest('blueprint/schemaInfo', {
      uri: pathToFileURL(path.join(folder, 'missing.yaml')).href,
    });
    expect(info).toBeNull();
  });

  it('is the setting, also as a URL fetched over HTTP', async () => {
    await client.changeSettings({ schema: schemaUrl });
    expect(await codesFor('url.yaml', blueprint('acme_shop.widget'))).toEqual([]);
    expect(await codesFor('url-other.yaml', blueprint('idp_flows.flow'))).toEqual(['model-unknown']);
    await client.changeSettings({ schema: 'acme.schema.json' });
    expect(await codesFor('relative.yaml', blueprint('acme_shop.widget'))).toEqual([]);
    await client.changeSettings({});
  });

  it('reports its release label', async () => {
    await client.changeSettings({ modeline: { allowDownload: true } });
    const uri = pathToFileURL(path.join(folder, 'label.yaml')).href;
    await client.open(uri, `# yaml-language-server: $schema=${schemaUrl}\n${blueprint('acme_shop.widget')}`);
    const info = (await client.connection.sendRequest('blueprint/schemaInfo', { uri })) as { title: string };
    expect(info.title).toBe(otherSchema.title);
    await client.close(uri);
    await client.changeSettings({});
  });
});
