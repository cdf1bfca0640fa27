import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  IPCMessageReader,
  IPCMessageWriter,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  DidOpenTextDocumentNotification,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';

const EXTENSION = fileURLToPath(new URL('../../vscode-extension/', import.meta.url));
const manifest = JSON.parse(readFileSync(`${EXTENSION}package.json`, 'utf8')) as { name: string; version: string };
const VSIX = `${EXTENSION}${manifest.name}-${manifest.version}.vsix`;
const SERVER = `${EXTENSION}dist/server.js`;
const SHIPPED_SCHEMA = `${EXTENSION}dist/blueprint.schema.json`;

/** Entry names and sizes of a zip file, from its central directory. */
function zipEntries(zip: Buffer): { name: string; size: number }[] {
  // The end-of-central-directory record is the last 22 bytes plus a comment of up to 64 KiB.
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip file');
  const count = zip.readUInt16LE(end + 10);
  const entries: { name: string; size: number }[] = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry at ${at}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    entries.push({ name: zip.toString('utf8', at + 46, at + 46 + nameLength), size: zip.readUInt32LE(at + 24) });
    at += 46 + nameLength + skip;
  }
  return entries;
}

beforeAll(async () => {
  // The real script: esbuild bundles, then vsce packs, offline and without questions.
  await promisify(execFile)('npm', ['run', 'package'], { cwd: EXTENSION, timeout: 120_000 });
}, 150_000);

describe('the .vsix', () => {
  let entries: { name: string; size: number }[];
  beforeAll(() => {
    entries = zipEntries(readFileSync(VSIX));
  });

  it('holds the bundles, the schema, the grammar, the manifest and the documents', () => {
    const names = entries.map(({ name }) => name);
    for (const name of [
      'extension/package.json',
      'extension/dist/extension.js',
      'extension/dist/server.js',
      'extension/dist/blueprint.schema.json',
      'extension/dist/terminateProcess.sh',
      'extension/syntaxes/blueprint.tmLanguage.json',
      'extension/language-configuration.json',
      'extension/images/icon.png',
      'extension/readme.md',
      'extension/changelog.md',
      'extension/LICENSE.txt',
    ]) {
      expect(names, name).toContain(name);
    }
  });

  it('holds no sources, dependencies or source maps', () => {
    const unwanted = entries.filter(({ name }) => /(^|\/)(node_modules|src|scripts)\/|\.map$|\.ts$/.test(name));
    expect(unwanted).toEqual([]);
  });

  it('is small', () => {
    const bytes = statSync(VSIX).size;
    const unpacked = entries.reduce((sum, { size }) => sum + size, 0);
    console.info(
      `${VSIX}: ${(bytes / 1024).toFixed(0)} KiB, ${entries.length} entries, ${(unpacked / 1024).toFixed(0)} KiB unpacked`,
    );
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
  });
});

const wrongBlueprint = `version: 1
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: my-flow
    attrs:
      name: My flow
      title: My flow
      designation: authenticatoin
`;

/** The bundled server in a child process, and an LSP connection to it. */
function startServer(transport: 'stdio' | 'ipc'): { child: ChildProcess; connection: ProtocolConnection } {
  // Without BLUEPRINT_SCHEMA: the bundle must find the schema shipped beside it by itself.
  const env = { ...process.env };
  delete env.BLUEPRINT_SCHEMA;
  if (transport === 'stdio') {
    const child = spawn(process.execPath, [SERVER, '--stdio'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    return { child, connection };
  }
  // As VS Code starts it (TransportKind.ipc): forked, messages over the Node IPC channel.
  const child = fork(SERVER, ['--node-ipc'], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return { child, connection: createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child)) };
}

describe.each(['stdio', 'ipc'] as const)('the bundled server over %s', (transport) => {
  let child: ChildProcess;
  let connection: ProtocolConnection;
  const published: PublishDiagnosticsParams[] = [];
  const uri = pathToFileURL('/tmp/blueprint-vscode-test/flow.blueprint.yaml').href;

  beforeAll(async () => {
    ({ child, connection } = startServer(transport));
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => void published.push(params));
    connection.listen();
    const result = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    expect(result.serverInfo?.name).toBe('blueprint-language-server');
    await connection.sendNotification(InitializedNotification.type, {});
  });

  afterAll(async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
    expect(await exited).toBe(0);
    connection.dispose();
  });

  it('publishes the mistake of a wrong blueprint', async () => {
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'blueprint', version: 1, text: wrongBlueprint },
    });
    await expect.poll(() => published.find((params) => params.uri === uri), { timeout: 20_000 }).toBeTruthy();
    const [diagnostic, ...others] = published.find((params) => params.uri === uri)!.diagnostics;
    expect(others).toEqual([]);
    expect(diagnostic).toMatchObject({
      code: 'field-invalid',
      severity: 1,
      source: 'blueprint',
      range: { start: { line: 9 } },
    });
  });

  it('checks against the schema shipped beside it', async () => {
    const info = await connection.sendRequest<{ title: string; location: string }>('blueprint/schemaInfo', { uri });
    const shipped = JSON.parse(readFileSync(SHIPPED_SCHEMA, 'utf8')) as { title: string };
    expect(info).toEqual({ title: shipped.title, location: pathToFileURL(SHIPPED_SCHEMA).href });
  });
});
