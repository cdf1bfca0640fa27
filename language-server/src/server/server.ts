import {
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
} from 'vscode-languageserver';
import { DocumentSessions } from './documents.ts';
import { EditableDocument } from './editable-document.ts';
import { registerConfiguration } from './handlers/configuration.ts';
import { registerDiagnostics } from './handlers/diagnostics.ts';
import { safeHandlers, type HandlerContext } from './handlers/handler-context.ts';
import { registerHandlers } from './handlers/registry.ts';
import { SchemaCache } from './schema-source.ts';

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

/**
 * Wires the language service to an LSP connection: documents (incremental sync), configuration,
 * diagnostics, then the handlers of each LSP area (`handlers/`).
 */
export function startServer(connection: Connection, options: ServerOptions): void {
  const documents = new TextDocuments(EditableDocument);
  const log = (message: string) => connection.console.error(message);
  // The notifications that call these come after initialization, when every part below exists.
  const configuration = registerConfiguration(connection, {
    settingsChanged() {
      sessions.reset();
      diagnostics.revalidateAll();
    },
    foldersChanged: () => diagnostics.revalidateAll(),
  });
  const sessions = new DocumentSessions(
    new SchemaCache(),
    options.bundledSchema,
    configuration.settingsOf,
    configuration.workspaceFolders,
  );
  const diagnostics = registerDiagnostics(
    { connection, documents, sessions, configuration, log },
    options.debounceMs ?? 10,
  );

  const context: HandlerContext = {
    connection,
    sessions,
    documentOf: (uri) => documents.get(uri),
    problemsOf: async (uri) => {
      const document = documents.get(uri);
      return document ? sessions.validate(document) : undefined;
    },
    stateOf: async (uri) => {
      const document = documents.get(uri);
      return document ? sessions.state(document) : undefined;
    },
    log,
    safely: safeHandlers(log, diagnostics.busy),
  };
  const handlerCapabilities = registerHandlers(context);

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    diagnostics.initialize(params);
    const capabilities: ServerCapabilities = {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      ...configuration.initialize(params),
      ...handlerCapabilities,
    };
    return { capabilities, serverInfo: { name: 'blueprint-language-server', version: '0.1.0' } };
  });
  connection.onShutdown(() => diagnostics.dispose());
  documents.listen(connection);
}
