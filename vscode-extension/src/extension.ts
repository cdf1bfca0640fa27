import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node.js';
import { createLanguageClient, SETTINGS_SECTION } from './client.ts';
import { registerCommands } from './commands.ts';
import { switchBlueprintYamlDocuments } from './language-switch.ts';
import { blueprintRequests } from './protocol.ts';
import { SchemaStatus } from './schema-status.ts';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = createLanguageClient(context);
  const requests = blueprintRequests(client);
  const status = new SchemaStatus(requests);
  context.subscriptions.push(
    status,
    ...registerCommands(requests),
    switchBlueprintYamlDocuments((document) => {
      if (document === vscode.window.activeTextEditor?.document) void status.refresh();
    }),
  );
  await client.start();
  // Registered after start(), hence after the client's own settings listener: the server has the
  // new settings before the status asks for the schema again.
  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor((editor) => void status.refresh(editor)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SETTINGS_SECTION)) void status.refresh();
    }),
  );
  await status.refresh();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
