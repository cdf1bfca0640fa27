/** A minimal LSP client over stdio (vscode-jsonrpc) for the blueprint benches: yaml-language-server or ours. */
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

/** The language servers the benches drive: the bin to run with node, and the package it belongs to. */
export const servers = {
  yamlLanguageServer: { packageName: 'yaml-language-server', bin: 'bin/yaml-language-server' },
  blueprint: { packageName: 'blueprint-language-server', bin: 'bin/blueprint-language-server.js' },
  /** The server as the VS Code extension ships it: one esbuild bundle (`npm run build -w vscode-extension`). */
  blueprintBundled: { packageName: 'blueprint-vscode', bin: 'dist/server.js' },
} as const;

export class LspProcess {
  readonly child: ChildProcess;
  readonly connection: MessageConnection;
  readonly version: string;
  private waiters = new Map<string, (diagnostics: Diagnostic[]) => void>();
  private versions = new Map<string, number>();
  private versionWaiters: { uri: string; version: number; resolve: (diagnostics: Diagnostic[]) => void }[] = [];

  /** `settings` answers `workspace/configuration` by section and is pushed after `initialized`. */
  constructor(
    server: (typeof servers)[keyof typeof servers],
    readonly settings: Record<string, object>,
  ) {
    const require = createRequire(import.meta.url);
    const packageJson = require.resolve(`${server.packageName}/package.json`);
    this.version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
    const bin = path.join(path.dirname(packageJson), server.bin);
    // BENCH_LSP_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles the server process.
    const nodeArgs = (process.env.BENCH_LSP_NODE_ARGS ?? '').split(' ').filter(Boolean);
    this.child = spawn(process.execPath, [...nodeArgs, bin, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.resume();
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout!),
      new StreamMessageWriter(this.child.stdin!),
    );
    this.connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
        this.versionWaiters = this.versionWaiters.filter((waiting) => {
          if (waiting.uri !== params.uri || waiting.version !== params.version) return true;
          waiting.resolve(params.diagnostics);
          return false;
        });
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
        return items.map((item) => (item.section ? (this.settings[item.section] ?? {}) : {}));
      }
      return null; // client/registerCapability, window/workDoneProgress/create, ...
    });
    this.connection.listen();
  }

  /** A request and the ms until its answer. */
  async timed<T>(method: string, params: object): Promise<{ ms: number; result: T }> {
    const started = performance.now();
    const result = await withTimeout(this.connection.sendRequest<T>(method, params), method);
    return { ms: performance.now() - started, result };
  }

  /** Sends incremental changes; resolves with the next diagnostics and the ms until they arrived. */
  async edit(uri: string, changes: object[]): Promise<{ ms: number; diagnostics: Diagnostic[] }> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    const received = this.nextDiagnostics(uri);
    const started = performance.now();
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: changes,
    });
    const diagnostics = await received;
    return { ms: performance.now() - started, diagnostics };
  }

  /** Sends incremental changes without waiting for anything; returns the new version. */
  async notifyChange(uri: string, changes: object[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: changes,
    });
    return version;
  }

  /** The diagnostics published for `version` of `uri` (servers that publish versions). */
  diagnosticsOfVersion(uri: string, version: number): Promise<Diagnostic[]> {
    return withTimeout(
      new Promise<Diagnostic[]>((resolve) => this.versionWaiters.push({ uri, version, resolve })),
      `diagnostics for version ${version} of ${path.basename(uri)}`,
      300_000,
    );
  }

  /** The ms until a request was answered with something, or undefined when it was not (in time, or at all). */
  async answeredWithin(method: string, params: object, timeoutMs: number): Promise<number | undefined> {
    const started = performance.now();
    try {
      const result = await withTimeout(this.connection.sendRequest<unknown>(method, params), method, timeoutMs);
      return result ? performance.now() - started : undefined;
    } catch (error) {
      if (error instanceof Timeout) return undefined;
      throw error;
    }
  }

  /** Resident set of the server process now and at its peak (VmRSS, VmHWM), in MB. */
  memoryMb(): { rss?: number; peak?: number } {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const read = (field: string) => {
        const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
        return Number.isFinite(kb) ? kb / 1024 : undefined;
      };
      return { rss: read('VmRSS'), peak: read('VmHWM') };
    } catch {
      return {};
    }
  }

  async start(rootDir: string): Promise<void> {
    await withTimeout(
      this.connection.sendRequest('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(rootDir).href,
        workspaceFolders: null,
        capabilities: {
          workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: false } },
          textDocument: {
            publishDiagnostics: { relatedInformation: false, versionSupport: false },
            completion: { completionItem: { snippetSupport: true } },
            hover: { contentFormat: ['markdown', 'plaintext'] },
          },
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

  /** The whole text replaced; resolves with the next diagnostics and the ms until they arrived. */
  change(uri: string, text: string): Promise<{ ms: number; diagnostics: Diagnostic[] }> {
    return this.edit(uri, [{ text }]);
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** Peak resident set of the server process (VmHWM), in MB; undefined when /proc is unavailable. */
  peakRssMb(): number | undefined {
    return this.memoryMb().peak;
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
