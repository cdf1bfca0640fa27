import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, Location, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspClient } from './lsp-client.ts';

const uri = 'file:///tmp/navigation.blueprint.yaml';
const text = `version: 1
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: login
  - model: idp_flows.flowstagebinding
    identifiers:
      target: !KeyOf flow
      order: 10
`;

describe('navigation and quick fixes over stdio', () => {
  let client: LspClient;
  beforeAll(async () => {
    client = new LspClient();
    await client.initialize(null);
    await client.open(uri, text);
    await client.waitForDiagnostics(uri);
  });
  afterAll(async () => {
    await client.stop();
  });
  const request = <T>(method: string, params: object) =>
    client.connection.sendRequest(method, { textDocument: { uri }, ...params }) as Promise<T>;

  it('answers definition, references and rename', async () => {
    const definition = await request<Location>('textDocument/definition', { position: { line: 8, character: 22 } });
    expect(definition).toEqual({ uri, range: { start: { line: 3, character: 8 }, end: { line: 3, character: 12 } } });
    const references = await request<Location[]>('textDocument/references', {
      position: { line: 3, character: 9 },
      context: { includeDeclaration: false },
    });
    expect(references.map((location) => location.range.start)).toEqual([{ line: 8, character: 21 }]);
    const rename = await request<WorkspaceEdit>('textDocument/rename', {
      position: { line: 3, character: 9 },
      newName: 'login_flow',
    });
    expect(rename.changes?.[uri]?.map((edit) => [edit.range.start.line, edit.newText])).toEqual([
      [3, 'login_flow'],
      [8, 'login_flow'],
    ]);
  });

  it('answers a refused rename with an error the editor shows', async () => {
    await client.change(uri, [{ range: { start: { line: 10, character: 0 }, end: { line: 10, character: 0 } }, text: '  - model: idp_flows.flow\n    id: other\n    identifiers:\n      slug: x\n' }]); // prettier-ignore
    await expect(
      request('textDocument/rename', { position: { line: 3, character: 9 }, newName: 'other' }),
    ).rejects.toThrow('An entry with id "other" already exists');
  });

  it('offers the quick fix of a misspelt field after an edit', async () => {
    const since = client.diagnostics.length;
    const version = await client.change(uri, [
      { range: { start: { line: 5, character: 6 }, end: { line: 5, character: 10 } }, text: 'slgu' },
    ]);
    const diagnostics = await client.waitForDiagnostics(uri, (params) => params.version === version, since);
    const diagnostic = diagnostics.find((item) => item.code === 'field-unknown')!;
    const actions = await request<CodeAction[]>('textDocument/codeAction', {
      range: diagnostic.range,
      context: { diagnostics: [diagnostic] },
    });
    expect(actions).toMatchObject([{ title: "Change to 'slug'", kind: 'quickfix', isPreferred: true }]);
    expect(actions[0]!.edit?.changes?.[uri]).toEqual([{ range: diagnostic.range, newText: 'slug' }]);
  });
});
