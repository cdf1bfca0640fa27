import { fileURLToPath } from 'node:url';
import {
  DidChangeConfigurationNotification,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { toDiagnostic } from './convert.ts';
import { createDiagnosticsScheduler } from './diagnostics-scheduler.ts';
import { defaultSettings, DocumentSessions, type Settings } from './documents.ts';
import { EditableDocument } from './editable-document.ts';
import type { FeatureContext } from './features/feature-context.ts';
import { registerFeatures } from './features/index.ts';
import { readLocalText } from './schema-reader.ts';
import { SchemaCache } from './schema-source.ts';
import { limitProblems, MAX_PUBLISHED_PROBLEMS } from '../service/problem.ts';

/** Largest blueprint Validate Workspace reads from disk, and how long a read may take. */
const MAX_BLUEPRINT_BYTES = 32 * 1024 * 1024;
const READ_TIMEOUT_MS = 10_000;

export interface ServerOptions {
  /** The schema used when neither a modeline nor the `blueprint.schema` setting names one. */
  bundledSchema: string;
  /**
   * Milliseconds of quiet after a change before the document is validated again (default 10: a
   * validation of changed entries takes tens of ms, so only keystrokes this close are merged).
   * A client may set its own with `initializationOptions.diagnosticsDelayMs`.
   */
  debounceMs?: number;
}

/** Custom requests of the blueprint extension (and any client that wants them). */
export const SCHEMA_INFO_REQUEST = 'blueprint/schemaInfo';
export const VALIDATE_FILES_REQUEST = 'blueprint/validateFiles';

/**
 * Wires the language service to an LSP connection: documents (incremental sync), diagnostics
 * (debounced, newest version only, cleared on close), settings, schemas and the features.
 */
export function startServer(connection: Connection, options: ServerOptions): void {
  const documents = new TextDocuments(EditableDocument);
  let clientPullsSettings = false;
  let pushedSettings: Settings = defaultSettings;
  /** Paths of the workspace folders: relative settings start at the first; modelines may name files in any. */
  let workspaceFolders: string[] = [];
  let foldersChangeNotified = false;
  const settingsCache = new Map<string, Promise<Settings>>();

  const settingsOf = (uri: string): Promise<Settings> => {
    if (!clientPullsSettings) return Promise.resolve(pushedSettings);
    let pending = settingsCache.get(uri);
    if (!pending) {
      pending = connection.workspace
        .getConfiguration({ scopeUri: uri, section: 'blueprint' })
        .then((value: unknown) => readSettings(value))
        .catch(() => pushedSettings);
      settingsCache.set(uri, pending);
    }
    return pending;
  };

  const sessions = new DocumentSessions(new SchemaCache(), options.bundledSchema, settingsOf, () => workspaceFolders);

  const log = (message: string) => connection.console.error(message);
  // Requests come first: a pending validation waits until they have been answered.
  const safely: FeatureContext['safely'] = (name, fallback, handler) => async (params) => {
    scheduler.busy();
    try {
      return await handler(params);
    } catch (error) {
      log(`blueprint: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return fallback;
    } finally {
      scheduler.busy();
    }
  };

  const publish = async (uri: string, version: number): Promise<void> => {
    const document = documents.get(uri);
    if (!document || document.version !== version) return;
    const settings = await settingsOf(uri);
    const problems = settings.validate ? await sessions.validate(document) : [];
    // A newer version may have arrived while the schema loaded: its own run will publish.
    if (documents.get(uri)?.version !== version) return;
    const shown = limitProblems(problems, MAX_PUBLISHED_PROBLEMS);
    const diagnostics = shown.map((found) => toDiagnostic(document, found));
    await connection.sendDiagnostics({ uri, version, diagnostics });
  };
  let delayMs = options.debounceMs ?? 10;
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

  const revalidateAll = () => {
    for (const document of documents.all()) scheduler.schedule(document.uri, document.version, true);
  };

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    clientPullsSettings = params.capabilities.workspace?.configuration === true;
    const folders = params.workspaceFolders?.length
      ? params.workspaceFolders.map((folder) => folder.uri)
      : [params.rootUri];
    workspaceFolders = pathsOf(folders);
    foldersChangeNotified = params.capabilities.workspace?.workspaceFolders === true;
    const initialization = (params.initializationOptions ?? {}) as { settings?: unknown; diagnosticsDelayMs?: unknown };
    if (initialization.settings !== undefined) pushedSettings = readSettings(initialization.settings);
    const delay = initialization.diagnosticsDelayMs;
    if (typeof delay === 'number' && Number.isFinite(delay) && delay >= 0) delayMs = Math.min(delay, 10_000);
    const capabilities: ServerCapabilities = {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      ...(foldersChangeNotified
        ? { workspace: { workspaceFolders: { supported: true, changeNotifications: true } } }
        : {}),
      ...featureCapabilities,
    };
    return { capabilities, serverInfo: { name: 'blueprint-language-server', version: '0.1.0' } };
  });

  connection.onInitialized(() => {
    if (clientPullsSettings) {
      void connection.client.register(DidChangeConfigurationNotification.type, undefined).catch(() => undefined);
    }
    if (foldersChangeNotified) {
      connection.workspace.onDidChangeWorkspaceFolders(({ added, removed }) => {
        const gone = new Set(pathsOf(removed.map((folder) => folder.uri)));
        workspaceFolders = [
          ...workspaceFolders.filter((folder) => !gone.has(folder)),
          ...pathsOf(added.map((folder) => folder.uri)),
        ];
        revalidateAll();
      });
    }
  });

  connection.onDidChangeConfiguration((change) => {
    const pushed = (change.settings as { blueprint?: unknown } | undefined)?.blueprint;
    if (pushed !== undefined) pushedSettings = readSettings(pushed);
    settingsCache.clear();
    sessions.reset();
    revalidateAll();
  });

  documents.onDidOpen(({ document }) => scheduler.schedule(document.uri, document.version, true));
  documents.onDidChangeContent(({ document }) => scheduler.schedule(document.uri, document.version));
  documents.onDidClose(({ document }) => {
    scheduler.cancel(document.uri);
    sessions.close(document.uri);
    settingsCache.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  const context: FeatureContext = {
    connection,
    documentOf: (uri) => documents.get(uri),
    problemsOf: async (uri) => {
      const document = documents.get(uri);
      return document ? sessions.validate(document) : undefined;
    },
    stateOf: async (uri) => {
      const document = documents.get(uri);
      return document ? sessions.state(document) : undefined;
    },
    safely,
  };
  const featureCapabilities = registerFeatures(context);

  connection.onRequest(
    SCHEMA_INFO_REQUEST,
    safely(SCHEMA_INFO_REQUEST, null, async (params: { uri: string }) => {
      const document = documents.get(params.uri);
      if (!document) return null;
      const schema = await sessions.schemaFor(document);
      return { title: schema.title ?? null, location: schema.location };
    }),
  );

  // Files that are not open are read from disk (regular files only, bounded: a FIFO named like a
  // blueprint must not hold a file-system thread); each gets its diagnostics published.
  connection.onRequest(
    VALIDATE_FILES_REQUEST,
    safely(VALIDATE_FILES_REQUEST, { files: 0, problems: 0 }, async (params: { uris: string[] }) => {
      let problems = 0;
      let files = 0;
      for (const uri of params.uris) {
        const open = documents.get(uri);
        // An open document's problems are those of its session (kept per version); others are read from disk.
        let text: string | undefined;
        if (!open) {
          try {
            text = await readLocalText(fileURLToPath(uri), MAX_BLUEPRINT_BYTES, READ_TIMEOUT_MS);
          } catch (error) {
            log(`blueprint: Validate Workspace skipped ${fileURLToPath(uri)}: ${(error as Error).message}`);
            continue;
          }
        }
        const document = open ?? TextDocument.create(uri, /\.json$/i.test(uri) ? 'json' : 'yaml', 0, text!);
        const found = open ? await sessions.validate(open) : await sessions.validateOnce(document);
        problems += found.length;
        files += 1;
        const shown = limitProblems(found, MAX_PUBLISHED_PROBLEMS);
        await connection.sendDiagnostics({ uri, diagnostics: shown.map((item) => toDiagnostic(document, item)) });
      }
      return { files, problems };
    }),
  );

  connection.onShutdown(() => scheduler.dispose());
  documents.listen(connection);
}

function readSettings(value: unknown): Settings {
  const raw = objectOf(value);
  const validate = objectOf(raw.validate);
  const modeline = objectOf(raw.modeline);
  const allowedPaths = Array.isArray(modeline.allowedPaths)
    ? modeline.allowedPaths.filter((entry): entry is string => typeof entry === 'string')
    : defaultSettings.modeline.allowedPaths;
  return {
    schema: typeof raw.schema === 'string' ? raw.schema : defaultSettings.schema,
    validate: typeof validate.enable === 'boolean' ? validate.enable : defaultSettings.validate,
    modeline: {
      allowedPaths,
      // Only `true` turns downloads on: a value of another type leaves them off.
      allowDownload: modeline.allowDownload === true,
    },
  };
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** The local paths of folder URIs (others, e.g. virtual file systems, have none). */
function pathsOf(uris: readonly (string | null)[]): string[] {
  return uris.filter((uri): uri is string => uri?.startsWith('file:') === true).map((uri) => fileURLToPath(uri));
}
