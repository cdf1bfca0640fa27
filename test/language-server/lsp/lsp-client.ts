import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWorkspaceFoldersNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';

const SERVER = fileURLToPath(new URL('../../../language-server/bin/blueprint-language-server.js', import.meta.url));

export interface ClientSettings {
  schema?: string;
  validate?: { enable?: boolean };
  modeline?: { allowedPaths?: string[]; allowDownload?: boolean };
}

/**
 * A real LSP client over the server's stdio: spawns `blueprint-language-server --stdio`, speaks
 * JSON-RPC through vscode-languageserver-protocol, answers `workspace/configuration` with
 * `settings` and records every diagnostics notification and log message.
 */
export class LspClient {
  readonly connection: ProtocolConnection;
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  readonly logs: string[] = [];
  settings: ClientSettings = {};
  private readonly child: ChildProcess;
  private readonly waiters: (() => void)[] = [];
  private readonly versions = new Map<string, number>();
  initializeResult: InitializeResult | undefined;

  constructor(env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [SERVER, '--stdio'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr!.on('data', (chunk: Buffer) => this.logs.push(chunk.toString()));
    this.connection = createProtocolConnection(
      new StreamMessageReader(this.child.stdout!),
      new StreamMessageWriter(this.child.stdin!),
    );
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.diagnostics.push(params);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.connection.onNotification(LogMessageNotification.method, (params: { message: string }) => {
      this.logs.push(params.message);
    });
    this.connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => this.settings));
    // Dynamic registrations (the server asks for configuration change notifications) are accepted.
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.listen();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** `workspaceFolders` (URIs) also declares that the client sends workspace folder changes. */
  async initialize(
    rootUri: string | null = null,
    initializationOptions?: unknown,
    workspaceFolders?: string[],
  ): Promise<InitializeResult> {
    this.initializeResult = await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri,
      ...(workspaceFolders ? { workspaceFolders: workspaceFolders.map((uri) => ({ uri, name: uri })) } : {}),
      capabilities: {
        workspace: {
          configuration: true,
          didChangeConfiguration: { dynamicRegistration: true },
          ...(workspaceFolders ? { workspaceFolders: true } : {}),
        },
        textDocument: {
          synchronization: { dynamicRegistration: false, didSave: false },
          completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          rename: { prepareSupport: true },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        },
      },
      ...(initializationOptions === undefined ? {} : { initializationOptions }),
    });
    await this.connection.sendNotification(InitializedNotification.type, {});
    return this.initializeResult;
  }

  async open(uri: string, text: string, languageId = 'yaml'): Promise<void> {
    this.versions.set(uri, 1);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version: 1, text },
    });
  }

  /** Sends changes (incremental ranges, or `{ text }` for the whole text); returns the new version. */
  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: changes,
    });
    return version;
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  async changeSettings(settings: ClientSettings): Promise<void> {
    this.settings = settings;
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { blueprint: settings },
    });
  }

  async changeWorkspaceFolders(added: string[], removed: string[] = []): Promise<void> {
    const folders = (uris: string[]) => uris.map((uri) => ({ uri, name: uri }));
    await this.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, {
      event: { added: folders(added), removed: folders(removed) },
    });
  }

  /** The next diagnostics for `uri` that satisfy `accept` (e.g. a version), published after `since`. */
  async waitForDiagnostics(
    uri: string,
    accept: (params: PublishDiagnosticsParams) => boolean = () => true,
    since = 0,
    timeoutMs = 20_000,
  ): Promise<Diagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.diagnostics.slice(since).find((params) => params.uri === uri && accept(params));
      if (found) return found.diagnostics;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no diagnostics for ${uri} within ${timeoutMs} ms; logs:\n${this.logs.join('')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  /** Shuts the server down as a client should; resolves with its exit code. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    try {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      this.child.kill();
    }
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}
