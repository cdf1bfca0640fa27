import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node.js';
import { DOCUMENT_SELECTOR } from './blueprint-files.ts';

/** The client id: VS Code reads the `blueprint.trace.server` setting by it. */
const CLIENT_ID = 'blueprint';
/** The settings section pushed to the server on change (it also pulls it per document). */
export const SETTINGS_SECTION = 'blueprint';

/**
 * The language client for the bundled server (`dist/server.js`, a Node process over IPC), which
 * validates against the schema shipped beside it unless a setting or modeline names another.
 */
export function createLanguageClient(context: vscode.ExtensionContext): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const env = { ...process.env, BLUEPRINT_SCHEMA: context.asAbsolutePath('dist/blueprint.schema.json') };
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, options: { env } },
    debug: { module, transport: TransportKind.ipc, options: { env, execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: { configurationSection: SETTINGS_SECTION },
    traceOutputChannel: vscode.window.createOutputChannel('Blueprint Language Server Trace'),
  };
  return new LanguageClient(CLIENT_ID, 'Blueprint Language Server', serverOptions, clientOptions);
}
