import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DocumentSymbolRequest,
  FoldingRangeRequest,
  HoverRequest,
  SymbolKind,
  type DocumentSymbol,
  type MarkupContent,
  type Position,
} from 'vscode-languageserver-protocol/node';
import { LspClient } from './lsp-client.ts';

const text = `version: 1
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: my-flow
    attrs:
      designation: authentication
  - model: idp_flows.flowstagebinding
    identifiers:
      target: !KeyOf flow
      order: 10
`;

/** The position of the first `word` in `source`, `shift` characters into it. */
function positionOf(source: string, word: string, shift = 1): Position {
  const offset = source.indexOf(word) + shift;
  const before = source.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before.at(-1)!.length };
}

describe('hover, symbols and folding over stdio', () => {
  let client: LspClient;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lsp-'));
  const uri = pathToFileURL(path.join(folder, 'outline.blueprint.yaml')).href;
  const textDocument = { uri };

  const hoverAt = async (position: Position) => {
    const found = await client.connection.sendRequest(HoverRequest.type, { textDocument, position });
    return { value: (found?.contents as MarkupContent | undefined)?.value, range: found?.range };
  };
  const symbols = async () =>
    (await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument })) as DocumentSymbol[];

  beforeAll(async () => {
    client = new LspClient();
    await client.initialize(pathToFileURL(folder).href);
    await client.open(uri, text);
  });
  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('announces the three capabilities', () => {
    expect(client.initializeResult?.capabilities).toMatchObject({
      hoverProvider: true,
      documentSymbolProvider: expect.anything(),
      foldingRangeProvider: true,
    });
  });

  it('hovers a field with its type and values, over the key', async () => {
    const found = await hoverAt(positionOf(text, 'designation'));
    expect(found.value).toContain('`attrs.designation` in `idp_flows.flow`');
    expect(found.value).toContain('One of: `authentication`');
    expect(found.range).toEqual({ start: { line: 7, character: 6 }, end: { line: 7, character: 17 } });
  });

  it('hovers !KeyOf with the entry it refers to', async () => {
    const found = await hoverAt(positionOf(text, '!KeyOf flow'));
    expect(found.value).toContain('Refers to the entry at line 3: model `idp_flows.flow`, identifiers `slug=my-flow`.');
    expect(found.range).toEqual({ start: { line: 10, character: 14 }, end: { line: 10, character: 25 } });
  });

  it('answers null where there is nothing to show', async () => {
    expect(
      await client.connection.sendRequest(HoverRequest.type, { textDocument, position: { line: 4, character: 0 } }),
    ).toBeNull();
  });

  it('gives a hierarchical outline', async () => {
    const [version, entries] = await symbols();
    expect(version).toMatchObject({ name: 'version', kind: SymbolKind.Namespace, detail: '1' });
    expect(entries).toMatchObject({
      name: 'entries',
      kind: SymbolKind.Namespace,
      range: { start: { line: 1, character: 0 }, end: { line: 11, character: 15 } },
      selectionRange: { start: { line: 1, character: 0 }, end: { line: 1, character: 7 } },
    });
    expect(entries!.children!.map((entry) => [entry.name, entry.kind, entry.selectionRange.start.line])).toEqual([
      ['idp_flows.flow  #flow  slug=my-flow', SymbolKind.Object, 2],
      ['idp_flows.flowstagebinding  target=!KeyOf flow, order=10', SymbolKind.Object, 8],
    ]);
  });

  it('gives line folds', async () => {
    const folds = await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument });
    expect(folds).toEqual([
      { startLine: 1, endLine: 11 },
      { startLine: 2, endLine: 7 },
      { startLine: 4, endLine: 5 },
      { startLine: 6, endLine: 7 },
      { startLine: 8, endLine: 11 },
      { startLine: 9, endLine: 11 },
    ]);
  });

  it('follows an incremental edit: a new entry above moves every answer', async () => {
    const added = '  - model: idp_core.group\n    id: admins\n    identifiers: {name: admins}\n';
    await client.change(uri, [
      { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: added },
    ]);
    const edited = text.replace('entries:\n', `entries:\n${added}`);
    const found = await hoverAt(positionOf(edited, '!KeyOf flow'));
    expect(found.value).toContain('Refers to the entry at line 6: model `idp_flows.flow`');
    const [, entries] = await symbols();
    expect(entries!.children!.map((entry) => entry.name)).toEqual([
      'idp_core.group  #admins  name=admins',
      'idp_flows.flow  #flow  slug=my-flow',
      'idp_flows.flowstagebinding  target=!KeyOf flow, order=10',
    ]);
    const folds = await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument });
    expect(folds?.[0]).toEqual({ startLine: 1, endLine: 14 });
    expect(folds).toContainEqual({ startLine: 2, endLine: 4 });
  });
});
