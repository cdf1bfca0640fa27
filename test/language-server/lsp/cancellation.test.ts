import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancellationTokenSource,
  CompletionRequest,
  LSPErrorCodes,
  ResponseError,
  type CompletionList,
} from 'vscode-languageserver-protocol/node';
import { generateBlueprint } from '../../../bench/blueprint-generator.ts';
import { LspClient } from './lsp-client.ts';

const SCHEMA = fileURLToPath(new URL('../../../schemas/blueprint.schema.json', import.meta.url));

/**
 * An editor cancels the completion and hover requests that further typing made useless. A request
 * cancelled while it waits behind other work is answered RequestCancelled without being run.
 */
describe('requests cancelled over stdio', () => {
  let client: LspClient;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lsp-'));
  const uri = pathToFileURL(path.join(folder, 'cancel.blueprint.yaml')).href;
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as Parameters<typeof generateBlueprint>[0];
  const text = generateBlueprint(schema, 3_000).text;
  const lines = text.split('\n');
  const modelLine = lines.findIndex((line) => /^\s*- model: \S+$/.test(line));
  const position = { line: modelLine, character: lines[modelLine]!.length };

  beforeAll(async () => {
    client = new LspClient();
    client.settings = { schema: SCHEMA };
    await client.initialize(pathToFileURL(folder).href);
    await client.open(uri, text);
    await client.waitForDiagnostics(uri, (params) => params.version === 1, 0, 60_000);
  }, 90_000);

  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('answers RequestCancelled for requests cancelled while queued, and goes on serving', async () => {
    // A whole new text keeps the server busy while the requests behind it are cancelled.
    void client.change(uri, [{ text: `${text}\n# changed\n` }]);
    const answers = Array.from({ length: 20 }, () => {
      const source = new CancellationTokenSource();
      const answer = client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position }, source.token); // prettier-ignore
      source.cancel();
      return answer.then(
        () => 'answered',
        (error: unknown) => (error instanceof ResponseError ? error.code : String(error)),
      );
    });
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 20 }, () => LSPErrorCodes.RequestCancelled));

    const served = (await client.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position,
    })) as CompletionList;
    expect(served.items.length).toBeGreaterThan(10);
    expect(client.logs.filter((line) => /failed/.test(line))).toEqual([]);
  }, 60_000);
});
