import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSource } from '../../../server/demo/random-source.ts';
import { corpus, mutate } from '../corpus-files.ts';
import { LspClient } from './lsp-client.ts';

/** Position of an offset in a text, as LSP counts (UTF-16 code units per line). */
function positionAt(text: string, offset: number) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

const positionMethods = [
  'textDocument/completion',
  'textDocument/hover',
  'textDocument/definition',
  'textDocument/prepareRename',
];

describe('the server under random edits', () => {
  let client: LspClient;
  beforeAll(async () => {
    client = new LspClient();
    await client.initialize(null);
  });
  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('answers every request after each of 300 random edits of the corpus files', async () => {
    const random = randomSource(8080);
    const failures: string[] = [];
    for (const [fileIndex, file] of corpus.entries()) {
      const uri = `file:///fuzz/${fileIndex}-${file.name}`;
      let text = file.text;
      await client.open(uri, text);
      for (let step = 0; step < Math.ceil(300 / corpus.length); step++) {
        const next = mutate(text, random);
        // Sent as one incremental change: the whole old text replaced by the new.
        const end = positionAt(text, text.length);
        await client.change(uri, [{ range: { start: { line: 0, character: 0 }, end }, text: next }]);
        text = next;
        const offset = Math.floor(random.next() * (text.length + 1));
        const position = positionAt(text, offset);
        const requests = [
          ...positionMethods.map((method) => [method, { textDocument: { uri }, position }] as const),
          ['textDocument/references', { textDocument: { uri }, position, context: { includeDeclaration: true } }] as const,
          ['textDocument/documentSymbol', { textDocument: { uri } }] as const,
          ['textDocument/foldingRange', { textDocument: { uri } }] as const,
          ['textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } }] as const,
        ]; // prettier-ignore
        for (const [method, params] of requests) {
          try {
            await client.connection.sendRequest(method, params);
          } catch (error) {
            failures.push(`${method} on ${file.name} step ${step}: ${error instanceof Error ? error.message : error}`);
          }
        }
      }
      await client.close(uri);
    }
    expect(failures).toEqual([]);
    // Handlers that failed would have logged it: none did.
    expect(client.logs.filter((line) => line.includes('failed'))).toEqual([]);
  }, 120_000);
});
