import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LspClient } from './lsp-client.ts';

const valid = `version: 1
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: my-flow
    attrs:
      name: My flow
      title: My flow
      designation: authentication
`;

describe('diagnostics over stdio', () => {
  let client: LspClient;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lsp-'));
  const uri = pathToFileURL(path.join(folder, 'flow.blueprint.yaml')).href;

  beforeAll(async () => {
    client = new LspClient();
    // A delay longer than the test's five changes take to send, however loaded the machine is.
    await client.initialize(pathToFileURL(folder).href, { diagnosticsDelayMs: 300 });
  });
  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('announces incremental sync', () => {
    expect(client.initializeResult?.capabilities.textDocumentSync).toMatchObject({ openClose: true, change: 2 });
  });

  it('publishes none for a valid blueprint on open', async () => {
    await client.open(uri, valid);
    expect(await client.waitForDiagnostics(uri, (params) => params.version === 1)).toEqual([]);
  });

  it('publishes the mistake of an incremental edit, at its place', async () => {
    const since = client.diagnostics.length;
    // designation: authentication -> authenticatoin
    const line = valid.split('\n').findIndex((text) => text.includes('designation'));
    const version = await client.change(uri, [
      { range: { start: { line, character: 29 }, end: { line, character: 31 } }, text: 'oi' },
    ]);
    const diagnostics = await client.waitForDiagnostics(uri, (params) => params.version === version, since);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'field-invalid',
      severity: 1,
      source: 'blueprint',
      range: { start: { line, character: 19 }, end: { line, character: 33 } },
    });
  });

  it('validates a burst of changes once, for the newest version only', async () => {
    const since = client.diagnostics.length;
    let version = 0;
    for (let i = 0; i < 5; i++) version = await client.change(uri, [{ text: `${valid}# edit ${i}\n` }]);
    await client.waitForDiagnostics(uri, (params) => params.version === version, since);
    const published = client.diagnostics.slice(since).filter((params) => params.uri === uri);
    expect(published.map((params) => params.version)).toEqual([version]);
  });

  it('clears the diagnostics when the document closes', async () => {
    const since = client.diagnostics.length;
    await client.change(uri, [{ text: 'version: 2\nentries: []\n' }]);
    await client.close(uri);
    expect(await client.waitForDiagnostics(uri, (params) => params.version === undefined, since)).toEqual([]);
  });

  it('uses the schema named by the settings, and says so when it cannot be read', async () => {
    const schemaFile = path.join(folder, 'tiny.schema.json');
    writeFileSync(schemaFile, '{ not json');
    const other = pathToFileURL(path.join(folder, 'other.blueprint.yaml')).href;
    await client.changeSettings({ schema: 'tiny.schema.json' });
    const since = client.diagnostics.length;
    await client.open(other, valid);
    const diagnostics = await client.waitForDiagnostics(other, () => true, since);
    expect(diagnostics).toMatchObject([{ code: 'schema-unavailable' }]);
    expect(diagnostics[0]!.message).toContain('tiny.schema.json');
    await client.changeSettings({});
    await client.close(other);
  });
});
