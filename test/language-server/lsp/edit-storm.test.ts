import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompletionRequest,
  HoverRequest,
  type CompletionList,
  type Hover,
  type MarkupContent,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { generateBlueprint } from '../../../bench/blueprint-generator.ts';
import { LspClient } from './lsp-client.ts';

const SCHEMA = fileURLToPath(new URL('../../../schemas/blueprint.schema.json', import.meta.url));
const ENTRIES = 2_000;
const EDITS = 500;

interface Asked {
  kind: 'hover' | 'completion';
  line: number;
  /** The model written on the line when the request was sent. */
  model: string;
  answer: Promise<Hover | CompletionList | null>;
}

/**
 * 500 edits sent without waiting, with hover and completion requests interleaved (not awaited, as
 * an editor sends them). Every fifth edit swaps the model of one line between two models, so that
 * only an answer computed from the text of its own moment names the right one.
 */
describe('an edit storm over stdio', () => {
  let client: LspClient;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lsp-'));
  const uri = pathToFileURL(path.join(folder, 'storm.blueprint.yaml')).href;
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as Parameters<typeof generateBlueprint>[0];
  const initial = generateBlueprint(schema, ENTRIES).text;
  const mirror = TextDocument.create(uri, 'yaml', 1, initial);
  const asked: Asked[] = [];
  let lastVersion = 1;

  beforeAll(async () => {
    client = new LspClient();
    client.settings = { schema: SCHEMA };
    await client.initialize(pathToFileURL(folder).href);
    await client.open(uri, initial);
    await client.waitForDiagnostics(uri, (params) => params.version === 1, 0, 60_000);

    const lines = initial.split('\n');
    const modelLines = lines.flatMap((line, index) => (/^\s*- model: \S+$/.test(line) ? [index] : []));
    const models = [...new Set(modelLines.map((index) => lines[index]!.split('model: ')[1]!))].slice(0, 2);
    const swapped = modelLines[Math.floor(modelLines.length / 2)]!;
    const typedInto = lines.flatMap((line, index) => (/: "[^"]*"$/.test(line) ? [index] : [])).filter((_, i) => i % 97 === 0); // prettier-ignore
    const send = async (change: TextDocumentContentChangeEvent) => {
      TextDocument.update(mirror, [change], mirror.version + 1);
      lastVersion = await client.change(uri, [change]);
    };
    const ask = (kind: Asked['kind'], line: number) => {
      const text = mirror.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
      const model = text.split('model: ')[1]!.trim();
      const valueAt = text.indexOf('model: ') + 'model: '.length;
      const position = { line, character: kind === 'hover' ? valueAt + 2 : valueAt + model.length };
      const params = { textDocument: { uri }, position };
      const answer =
        kind === 'hover'
          ? client.connection.sendRequest(HoverRequest.type, params)
          : (client.connection.sendRequest(CompletionRequest.type, params) as Promise<CompletionList | null>);
      asked.push({ kind, line, model, answer });
    };

    for (let i = 0; i < EDITS; i++) {
      if (i % 5 === 0) {
        const text = mirror.getText({
          start: { line: swapped, character: 0 },
          end: { line: swapped + 1, character: 0 },
        });
        const from = text.indexOf('model: ') + 'model: '.length;
        const current = text.slice(from).trim();
        const next = models[(i / 5) % 2]!;
        const range = {
          start: { line: swapped, character: from },
          end: { line: swapped, character: from + current.length },
        };
        await send({ range, text: next });
        ask(i % 10 === 0 ? 'hover' : 'completion', swapped);
      } else {
        const line = typedInto[i % typedInto.length]!;
        const at = { line, character: mirror.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).lastIndexOf('"') }; // prettier-ignore
        await send({ range: { start: at, end: at }, text: 'x' });
      }
      if (i % 25 === 0) ask('hover', modelLines[i % modelLines.length]!);
    }
  }, 120_000);

  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('answers every request from the text of its moment', async () => {
    expect(asked.length).toBeGreaterThan(100);
    for (const request of asked) {
      const answer = await request.answer;
      if (request.kind === 'hover') {
        expect((answer as Hover | null)?.contents, `hover on line ${request.line}`).toBeDefined();
        expect(((answer as Hover).contents as MarkupContent).value).toContain(request.model);
        expect((answer as Hover).range?.start.line).toBe(request.line);
      } else {
        const items = (answer as CompletionList).items;
        const same = items.find((item) => item.label === request.model);
        expect(same, `completion of ${request.model}`).toBeDefined();
        const edit = same!.textEdit as { range: { start: { line: number; character: number }; end: { character: number } } }; // prettier-ignore
        expect(edit.range.start.line).toBe(request.line);
        expect(edit.range.end.character - edit.range.start.character).toBe(request.model.length);
      }
    }
  }, 120_000);

  it('publishes diagnostics of the final text last, and never an older version after a newer one', async () => {
    const final = await client.waitForDiagnostics(uri, (params) => params.version === lastVersion, 0, 60_000);
    const versions = client.diagnostics.filter((params) => params.uri === uri).map((params) => params.version!);
    expect(versions.at(-1)).toBe(lastVersion);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    // Far fewer validations than edits: stale versions are not validated one by one.
    expect(versions.length).toBeLessThan(EDITS / 5);

    const fresh = pathToFileURL(path.join(folder, 'fresh.blueprint.yaml')).href;
    await client.open(fresh, mirror.getText());
    const expected = await client.waitForDiagnostics(fresh, (params) => params.version === 1, 0, 60_000);
    expect(final).toEqual(expected);
    expect(final.length).toBeGreaterThan(0);
  }, 120_000);
});
