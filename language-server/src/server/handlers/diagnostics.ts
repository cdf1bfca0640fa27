import type { Connection, InitializeParams, TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { toDiagnostics } from '../convert.ts';
import { createDiagnosticsScheduler } from '../diagnostics-scheduler.ts';
import type { DocumentSessions } from '../documents.ts';
import type { Configuration } from './configuration.ts';

/** The diagnostics of the open documents, for the server and the other areas. */
export interface Diagnostics {
  /** A request is being served: pending validations wait until the server is quiet again. */
  busy(): void;
  /** Validates every open document again. */
  revalidateAll(): void;
  /** Reads the client's `initializationOptions.diagnosticsDelayMs`. */
  initialize(params: InitializeParams): void;
  dispose(): void;
}

export interface DiagnosticsSources {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  sessions: DocumentSessions;
  configuration: Pick<Configuration, 'settingsOf' | 'forget'>;
  log(message: string): void;
}

/**
 * Documents opened, changed and closed, and the diagnostics that follow: debounced by
 * `debounceMs`, published for the newest version only, cleared on close.
 */
export function registerDiagnostics(sources: DiagnosticsSources, debounceMs: number): Diagnostics {
  const { connection, documents, sessions, configuration, log } = sources;
  let delayMs = debounceMs;

  const publish = async (uri: string, version: number): Promise<void> => {
    const document = documents.get(uri);
    if (!document || document.version !== version) return;
    const settings = await configuration.settingsOf(uri);
    const problems = settings.validate ? await sessions.validate(document) : [];
    // A newer version may have arrived while the schema loaded: its own run will publish.
    if (documents.get(uri)?.version !== version) return;
    await connection.sendDiagnostics({ uri, version, diagnostics: toDiagnostics(document, problems) });
  };

  /** A schema that cannot be loaded is shown on the document, not only in a log. */
  const sendSchemaProblem = async (uri: string, document: TextDocument, error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const range = {
      start: { line: 0, character: 0 },
      end: document.positionAt(document.getText().indexOf('\n') >>> 0),
    };
    await connection.sendDiagnostics({
      uri,
      version: document.version,
      diagnostics: [{ range, severity: 1, source: 'blueprint', code: 'schema-unavailable', message }],
    });
  };

  const scheduler = createDiagnosticsScheduler(
    () => delayMs,
    async (uri, version) => {
      try {
        await publish(uri, version);
      } catch (error) {
        log(`blueprint: validation of ${uri} failed: ${error instanceof Error ? error.message : String(error)}`);
        const document = documents.get(uri);
        if (document) await sendSchemaProblem(uri, document, error);
      }
    },
  );

  documents.onDidOpen(({ document }) => scheduler.schedule(document.uri, document.version, true));
  documents.onDidChangeContent(({ document }) => scheduler.schedule(document.uri, document.version));
  documents.onDidClose(({ document }) => {
    scheduler.cancel(document.uri);
    sessions.close(document.uri);
    configuration.forget(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  return {
    busy: () => scheduler.busy(),
    revalidateAll() {
      for (const document of documents.all()) scheduler.schedule(document.uri, document.version, true);
    },
    initialize(params) {
      const delay = (params.initializationOptions as { diagnosticsDelayMs?: unknown } | undefined)?.diagnosticsDelayMs;
      if (typeof delay === 'number' && Number.isFinite(delay) && delay >= 0) delayMs = Math.min(delay, 10_000);
    },
    dispose: () => scheduler.dispose(),
  };
}
