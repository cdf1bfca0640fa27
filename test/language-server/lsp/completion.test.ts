import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompletionItemKind,
  InsertTextFormat,
  type CompletionItem,
  type CompletionList,
  type Position,
  type TextEdit,
} from 'vscode-languageserver-protocol';
import { LspClient } from './lsp-client.ts';

const blueprint = [
  '# Login flow',
  'version: 1',
  'entries:',
  '  - model: idp_flows.flow',
  '    id: flow',
  '    identifiers:',
  '      slug: my-flow',
  '    attrs:',
  '      name: My flow',
  // An empty line indented like the fields above, as an editor leaves it.
  '      ',
  '  - model: idp_co',
  '  - model: idp_flows.flowstagebinding',
  '    identifiers:',
  '      target: !KeyOf ',
  '',
].join('\n');

/** The position just after `needle` (its first occurrence) in `text`. */
function after(text: string, needle: string): Position {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`no ${needle}`);
  const before = text.slice(0, offset + needle.length).split('\n');
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

describe('completion over stdio', () => {
  let client: LspClient;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-lsp-completion-'));
  const uri = pathToFileURL(path.join(folder, 'flow.blueprint.yaml')).href;

  const complete = async (position: Position): Promise<CompletionItem[]> => {
    const result = (await client.connection.sendRequest('textDocument/completion', {
      textDocument: { uri },
      position,
    })) as CompletionList | null;
    expect(result).not.toBeNull();
    return result!.items;
  };
  const find = (items: CompletionItem[], label: string): CompletionItem => {
    const found = items.find((item) => item.label === label);
    if (!found) throw new Error(`no ${label} among ${items.map((item) => item.label).join(', ')}`);
    return found;
  };

  beforeAll(async () => {
    client = new LspClient();
    await client.initialize(pathToFileURL(folder).href);
    await client.open(uri, blueprint);
  });
  afterAll(async () => {
    expect(await client.stop()).toBe(0);
  });

  it('announces completion with its trigger characters', () => {
    expect(client.initializeResult?.capabilities.completionProvider?.triggerCharacters).toEqual(
      expect.arrayContaining([' ', ':', '!', '-', '[']),
    );
  });

  it('completes a model name, replacing what is typed', async () => {
    const position = after(blueprint, '- model: idp_co');
    const item = find(await complete(position), 'idp_core.user');
    expect(item).toMatchObject({ kind: CompletionItemKind.Class, detail: 'idp_core', insertTextFormat: 1 });
    expect(item.textEdit).toEqual({
      range: { start: { line: position.line, character: position.character - 'idp_co'.length }, end: position },
      newText: 'idp_core.user',
    });
  });

  it('completes attrs fields with snippets and Markdown documentation, without present fields', async () => {
    const items = await complete(after(blueprint, 'name: My flow\n      '));
    expect(items.map((item) => item.label)).not.toContain('name');
    const designation = find(items, 'designation');
    expect(designation.insertTextFormat).toBe(InsertTextFormat.Snippet);
    expect((designation.textEdit as TextEdit).newText).toMatch(/^designation: \$\{1\|authentication,.*\|\}$/);
    const title = find(items, 'title');
    expect(title).toMatchObject({
      insertTextFormat: InsertTextFormat.PlainText,
      command: { command: 'editor.action.triggerSuggest' },
    });
    expect(find(items, 'policy_engine_mode').documentation).toMatchObject({ kind: 'markdown' });
  });

  it('completes `!KeyOf` with the ids above', async () => {
    const items = await complete(after(blueprint, '!KeyOf '));
    expect(items.map((item) => item.label)).toEqual(['flow']);
    expect(items[0]).toMatchObject({ kind: CompletionItemKind.Reference, detail: 'idp_flows.flow · slug: my-flow' });
  });

  it('follows an incremental edit: a new entry above is offered to `!KeyOf`', async () => {
    const at = after(blueprint, 'name: My flow\n      \n');
    await client.change(uri, [{ range: { start: at, end: at }, text: '  - model: idp_core.user\n    id: admin\n' }]);
    const edited = blueprint.replace('      \n', '      \n  - model: idp_core.user\n    id: admin\n');
    const items = await complete(after(edited, '!KeyOf '));
    // The flow before the nearer user: a flow stage binding's target is a flow.
    expect(items.map((item) => item.label)).toEqual(['flow', 'admin']);
  });

  it('ranks the ids of the models a field refers to first, by sortText', async () => {
    const stages = [
      'version: 1',
      'entries:',
      '  - model: idp_stages_dummy.dummystage',
      '    id: dummy',
      '  - model: idp_flows.flow',
      '    id: login',
      '  - model: idp_core.group',
      '    id: admins',
      '  - model: idp_flows.flowstagebinding',
      '    identifiers:',
      '      target: !KeyOf ',
      '      stage: !KeyOf ',
      '',
    ].join('\n');
    const stagesUri = pathToFileURL(path.join(folder, 'stages.blueprint.yaml')).href;
    await client.open(stagesUri, stages);
    const ranked = async (needle: string): Promise<string[]> => {
      const result = (await client.connection.sendRequest('textDocument/completion', {
        textDocument: { uri: stagesUri },
        position: after(stages, needle),
      })) as CompletionList;
      // The client orders by sortText, whatever the order of the list.
      return [...result.items].sort((a, b) => a.sortText!.localeCompare(b.sortText!)).map((item) => item.label);
    };
    expect(await ranked('target: !KeyOf ')).toEqual(['login', 'admins', 'dummy']);
    expect(await ranked('stage: !KeyOf ')).toEqual(['dummy', 'admins', 'login']);
  });

  it('answers an empty list where nothing fits, and null for a document that is not open', async () => {
    expect(await complete(after(blueprint, '# Login'))).toEqual([]);
    const other = pathToFileURL(path.join(folder, 'closed.blueprint.yaml')).href;
    const result = await client.connection.sendRequest('textDocument/completion', {
      textDocument: { uri: other },
      position: { line: 0, character: 0 },
    });
    expect(result).toBeNull();
  });
});
