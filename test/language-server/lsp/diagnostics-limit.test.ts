import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LspClient } from './lsp-client.ts';

describe('diagnostics published per document', () => {
  let client: LspClient;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lsp-'));
  const uri = pathToFileURL(path.join(folder, 'many.blueprint.yaml')).href;

  beforeAll(async () => {
    client = new LspClient();
    await client.initialize(pathToFileURL(folder).href);
  });
  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('sends the first 1,000 problems and one more saying how many are not shown', async () => {
    const count = 1_500;
    await client.open(uri, `version: 1\nentries:\n${'  - model: nope.nope\n'.repeat(count)}`);
    const diagnostics = await client.waitForDiagnostics(uri, (params) => params.version === 1);
    expect(diagnostics).toHaveLength(1_001);
    expect(diagnostics.slice(0, 1_000).every((found) => found.code === 'model-unknown')).toBe(true);
    expect(diagnostics[1_000]).toMatchObject({
      code: 'problems-not-shown',
      severity: 1,
      range: { start: { line: 1_002, character: 11 } },
    });
    expect(diagnostics[1_000]!.message).toMatch(/^500 more problems not shown/);
  });
});
