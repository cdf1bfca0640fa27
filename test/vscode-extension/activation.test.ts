import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { activate, deactivate } from '../../vscode-extension/src/extension.ts';
import { LanguageClient, TransportKind } from './language-client-stub.ts';
import { changeConfiguration, resetStub, showEditor, stub, textDocument } from './vscode-stub.ts';

vi.mock('vscode', () => import('./vscode-stub.ts'));
vi.mock('vscode-languageclient/node.js', () => import('./language-client-stub.ts'));

const manifest = JSON.parse(readFileSync(new URL('../../vscode-extension/package.json', import.meta.url), 'utf8')) as {
  contributes: { commands: { command: string }[] };
};

const EXTENSION_PATH = '/extensions/blueprint-vscode';
const context = () => ({
  subscriptions: [] as { dispose(): void }[],
  asAbsolutePath: (relative: string) => `${EXTENSION_PATH}/${relative}`,
});

const blueprintText = 'version: 1\nmetadata:\n  name: Demo\nentries:\n  - model: idp_flows.flow\n';
const schemaInfo = (title: string) => ({ title, location: 'file:///schemas/blueprint.schema.json' });

/** Lets the promises the extension started without awaiting (status refreshes, language switches) settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

let subscriptions: { dispose(): void }[] = [];
async function activated(): Promise<LanguageClient> {
  const extensionContext = context();
  subscriptions = extensionContext.subscriptions;
  await activate(extensionContext as never);
  await settle();
  const client = LanguageClient.instances.at(-1);
  if (!client) throw new Error('no language client was created');
  return client;
}

const statusItem = () => {
  const [item] = stub.statusBarItems;
  if (!item) throw new Error('no status bar item');
  return item;
};

beforeEach(() => {
  resetStub();
  LanguageClient.instances.length = 0;
  LanguageClient.answer = (method) =>
    method === 'blueprint/schemaInfo' ? schemaInfo('idp 2025.12 Blueprint schema') : null;
});

afterEach(async () => {
  await deactivate();
  for (const disposable of subscriptions) disposable.dispose();
});

describe('activate', () => {
  it('registers every command the manifest contributes, and only those', async () => {
    await activated();
    expect([...stub.commands.keys()].sort()).toEqual(
      manifest.contributes.commands.map(({ command }) => command).sort(),
    );
  });

  it('starts a client for the bundled server over IPC, with the shipped schema', async () => {
    const client = await activated();
    const env = { BLUEPRINT_SCHEMA: `${EXTENSION_PATH}/dist/blueprint.schema.json` };
    expect(client.id).toBe('blueprint');
    expect(client.state).toBe('running');
    expect(client.serverOptions).toMatchObject({
      run: { module: `${EXTENSION_PATH}/dist/server.js`, transport: TransportKind.ipc, options: { env } },
      debug: { module: `${EXTENSION_PATH}/dist/server.js`, transport: TransportKind.ipc, options: { env } },
    });
    const debugArgs = (client.serverOptions as { debug: { options: { execArgv: string[] } } }).debug.options.execArgv;
    expect(debugArgs.some((arg) => arg.startsWith('--inspect'))).toBe(true);
  });

  it('serves the blueprint language and blueprint-named YAML and JSON, and synchronizes the blueprint settings', async () => {
    const { clientOptions } = await activated();
    expect(clientOptions.documentSelector).toEqual(
      expect.arrayContaining([
        { language: 'blueprint' },
        { language: 'yaml', pattern: '**/*.blueprint.{yaml,yml}' },
        { language: 'json', pattern: '**/*.blueprint.json' },
      ]),
    );
    expect(clientOptions.synchronize).toEqual({ configurationSection: 'blueprint' });
    expect(clientOptions.traceOutputChannel).toMatchObject({ name: 'Blueprint Language Server Trace' });
  });

  it('stops the client on deactivate', async () => {
    const client = await activated();
    await deactivate();
    expect(client.state).toBe('stopped');
  });
});

describe('status bar', () => {
  it("shows the release label of the active blueprint's schema, and opens the schema on click", async () => {
    const document = textDocument('/work/flows/login.blueprint.yaml', 'blueprint', blueprintText);
    stub.activeTextEditor = { document };
    const client = await activated();
    expect(client.requests).toContainEqual({
      method: 'blueprint/schemaInfo',
      params: { uri: document.uri.toString() },
    });
    expect(statusItem()).toMatchObject({ visible: true, command: 'blueprint.showSchema' });
    expect(statusItem().text).toContain('idp 2025.12 Blueprint schema');
  });

  it('hides for an editor that is not a blueprint and shows again for one that is', async () => {
    await activated();
    showEditor(textDocument('/work/README.md', 'markdown', '# hi'));
    await settle();
    expect(statusItem().visible).toBe(false);
    showEditor(textDocument('/work/blueprints/system/bootstrap.yaml', 'yaml', blueprintText));
    await settle();
    expect(statusItem().visible).toBe(true);
    showEditor(undefined);
    await settle();
    expect(statusItem().visible).toBe(false);
  });

  it('follows a change of the blueprint settings, not of others', async () => {
    stub.activeTextEditor = { document: textDocument('/work/a.blueprint.yaml', 'blueprint', blueprintText) };
    await activated();
    LanguageClient.answer = () => schemaInfo('idp 2026.2 Blueprint schema');
    changeConfiguration('editor.fontSize');
    await settle();
    expect(statusItem().text).toContain('idp 2025.12');
    changeConfiguration('blueprint.schema');
    await settle();
    expect(statusItem().text).toContain('idp 2026.2');
  });

  it('hides when the server has no schema for the document', async () => {
    stub.activeTextEditor = { document: textDocument('/work/a.blueprint.yaml', 'blueprint', blueprintText) };
    LanguageClient.answer = () => null;
    await activated();
    expect(statusItem().visible).toBe(false);
  });

  it('keeps the newest editor when an older answer arrives late', async () => {
    await activated();
    let answerSlowly: (value: unknown) => void = () => undefined;
    LanguageClient.answer = () => new Promise((resolve) => (answerSlowly = resolve));
    showEditor(textDocument('/work/a.blueprint.yaml', 'blueprint', blueprintText));
    LanguageClient.answer = () => schemaInfo('newest');
    showEditor(textDocument('/work/b.blueprint.yaml', 'blueprint', blueprintText));
    await settle();
    answerSlowly(schemaInfo('stale'));
    await settle();
    expect(statusItem().text).toContain('newest');
  });
});

describe('YAML documents with blueprint content', () => {
  it('switches an open YAML blueprint to the blueprint language, and leaves other YAML alone', async () => {
    const blueprint = textDocument('/work/deploy/flows.yaml', 'yaml', blueprintText);
    const compose = textDocument('/work/docker-compose.yaml', 'yaml', 'version: "3"\nservices:\n  db: {}\n');
    stub.textDocuments.push(blueprint, compose);
    await activated();
    expect(stub.languageChanges).toEqual([{ uri: blueprint.uri.toString(), languageId: 'blueprint' }]);
    expect(compose.languageId).toBe('yaml');
  });

  it('switches a YAML blueprint when it opens, and updates the status bar if it is the active one', async () => {
    await activated();
    const document = textDocument(
      '/work/x.yaml',
      'yaml',
      `# yaml-language-server: $schema=../blueprint.schema.json\n${blueprintText}`,
    );
    stub.activeTextEditor = { document };
    const requestsBefore = LanguageClient.instances[0]!.requests.length;
    stub.onDidOpenTextDocument.fire(document);
    await settle();
    expect(stub.languageChanges).toEqual([{ uri: document.uri.toString(), languageId: 'blueprint' }]);
    expect(LanguageClient.instances[0]!.requests.length).toBe(requestsBefore + 1);
    expect(statusItem().visible).toBe(true);
  });

  it('does not switch JSON, other languages, or a document the user turned back to YAML', async () => {
    await activated();
    const document = textDocument('/work/x.yaml', 'yaml', blueprintText);
    stub.onDidOpenTextDocument.fire(document);
    await settle();
    document.languageId = 'yaml';
    stub.onDidOpenTextDocument.fire(document);
    stub.onDidOpenTextDocument.fire(textDocument('/work/x.json', 'json', '{"version": 1, "entries": []}'));
    stub.onDidOpenTextDocument.fire(textDocument('/work/x.txt', 'plaintext', blueprintText));
    await settle();
    expect(stub.languageChanges).toHaveLength(1);
  });
});

describe('Blueprint: Validate Workspace', () => {
  const run = () => stub.commands.get('blueprint.validateWorkspace')!();

  it('validates the blueprint files of the workspace once each, without node_modules, and reports the counts', async () => {
    stub.files.set('**/*.blueprint.{yaml,yml,json}', ['/work/a.blueprint.yaml', '/work/blueprints/b.blueprint.yaml']);
    stub.files.set('**/blueprints/**/*.{yaml,yml}', ['/work/blueprints/b.blueprint.yaml', '/work/blueprints/c.yml']);
    LanguageClient.answer = () => ({ files: 3, problems: 1 });
    const client = await activated();
    stub.messageAnswer = 'Show Problems';
    await run();
    expect(stub.findFilesCalls.every(({ exclude }) => exclude === '**/node_modules/**')).toBe(true);
    expect(client.requests.at(-1)).toEqual({
      method: 'blueprint/validateFiles',
      params: {
        uris: [
          'file:///work/a.blueprint.yaml',
          'file:///work/blueprints/b.blueprint.yaml',
          'file:///work/blueprints/c.yml',
        ],
      },
    });
    expect(stub.messages.at(-1)).toMatchObject({ level: 'warning', text: 'Blueprint: validated 3 files, 1 problem.' });
    expect(stub.executedCommands).toEqual(['workbench.actions.view.problems']);
  });

  it('says so when there is nothing to validate', async () => {
    const client = await activated();
    await run();
    expect(client.requests.some(({ method }) => method === 'blueprint/validateFiles')).toBe(false);
    expect(stub.messages.at(-1)).toMatchObject({
      level: 'info',
      text: 'Blueprint: no blueprint files in this workspace.',
    });
  });
});

describe('Blueprint: Show Schema', () => {
  const run = () => stub.commands.get('blueprint.showSchema')!();

  it('opens a schema file in an editor', async () => {
    stub.activeTextEditor = { document: textDocument('/work/a.blueprint.yaml', 'blueprint', blueprintText) };
    await activated();
    await run();
    expect(stub.shownDocuments).toEqual(['file:///schemas/blueprint.schema.json']);
    expect(stub.externalUris).toEqual([]);
  });

  it('opens a schema URL in the browser', async () => {
    stub.activeTextEditor = { document: textDocument('/work/a.blueprint.yaml', 'blueprint', blueprintText) };
    LanguageClient.answer = () => ({ title: 'remote', location: 'https://schemas.example/blueprint.json' });
    await activated();
    await run();
    expect(stub.externalUris).toEqual(['https://schemas.example/blueprint.json']);
    expect(stub.shownDocuments).toEqual([]);
  });

  it('asks for a blueprint when none is active', async () => {
    showEditor(textDocument('/work/notes.md', 'markdown'));
    await activated();
    await run();
    expect(stub.messages.at(-1)?.text).toMatch(/open a blueprint file/);
    expect(stub.shownDocuments).toEqual([]);
  });
});
