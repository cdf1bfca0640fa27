/** A minimal LSP client for yaml-language-server over stdio (vscode-jsonrpc), for the blueprint bench. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';
import type { MessageConnection } from 'vscode-jsonrpc';

export interface Diagnostic {
  severity?: number;
  message: string;
}

export const STEP_TIMEOUT_MS = 60_000;

export class Timeout extends Error {}

function withTimeout<T>(promise: Promise<T>, what: string, ms = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Timeout(`${what}: no answer in ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export class YamlLanguageServer {
  readonly child: ChildProcess;
  readonly connection: MessageConnection;
  readonly version: string;
  private waiters = new Map<string, (diagnostics: Diagnostic[]) => void>();
  private versions = new Map<string, number>();

  constructor(readonly settings: { yaml: object }) {
    const require = createRequire(import.meta.url);
    const packageJson = require.resolve('yaml-language-server/package.json');
    this.version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
    const bin = path.join(path.dirname(packageJson), 'bin', 'yaml-language-server');
    this.child = spawn(process.execPath, [bin, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.resume();
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout!),
      new StreamMessageWriter(this.child.stdin!),
    );
    this.connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: { uri: string; diagnostics: Diagnostic[] }) => {
        const waiter = this.waiters.get(params.uri);
        if (waiter) {
          this.waiters.delete(params.uri);
          waiter(params.diagnostics);
        }
      },
    );
    this.connection.onNotification(() => {});
    this.connection.onRequest((method: string, params: unknown) => {
      if (method === 'workspace/configuration') {
        const items = (params as { items: { section?: string }[] }).items;
        return items.map((item) => (item.section === 'yaml' ? this.settings.yaml : {}));
      }
      return null; // client/registerCapability, window/workDoneProgress/create, ...
    });
    this.connection.listen();
  }

  async start(rootDir: string): Promise<void> {
    await withTimeout(
      this.connection.sendRequest('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(rootDir).href,
        workspaceFolders: null,
        capabilities: {
          workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: false } },
          textDocument: { publishDiagnostics: { relatedInformation: false, versionSupport: false } },
        },
      }),
      'initialize',
    );
    await this.connection.sendNotification('initialized', {});
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: this.settings });
  }

  private nextDiagnostics(uri: string): Promise<Diagnostic[]> {
    return withTimeout(
      new Promise<Diagnostic[]>((resolve) => this.waiters.set(uri, resolve)),
      `diagnostics for ${path.basename(uri)}`,
    ).finally(() => this.waiters.delete(uri));
  }

  /** Opens a document; resolves with the first diagnostics and the ms from didOpen to them. */
  async open(uri: string, text: string): Promise<{ ms: number; diagnostics: Diagnostic[] }> {
    const received = this.nextDiagnostics(uri);
    const started = performance.now();
    this.versions.set(uri, 1);
    await this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: 1, text },
    });
    const diagnostics = await received;
    return { ms: performance.now() - started, diagnostics };
  }

  async change(uri: string, text: string): Promise<{ ms: number; diagnostics: Diagnostic[] }> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    const received = this.nextDiagnostics(uri);
    const started = performance.now();
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
    const diagnostics = await received;
    return { ms: performance.now() - started, diagnostics };
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** Peak resident set of the server process (VmHWM), in MB; undefined when /proc is unavailable. */
  peakRssMb(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
      return Number.isFinite(kb) ? kb / 1024 : undefined;
    } catch {
      return undefined;
    }
  }

  async stop(): Promise<string> {
    let outcome = 'shut down';
    try {
      await withTimeout(this.connection.sendRequest('shutdown'), 'shutdown', 10_000);
      await this.connection.sendNotification('exit');
    } catch (error) {
      outcome = `killed (${error instanceof Error ? error.message : String(error)})`;
    }
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    const timer = setTimeout(() => {
      outcome = 'killed (did not exit after exit notification)';
      this.child.kill('SIGKILL');
    }, 5_000);
    await exited;
    clearTimeout(timer);
    this.connection.dispose();
    return outcome;
  }
}
