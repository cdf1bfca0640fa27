import * as vscode from 'vscode';
import type { BlueprintRequests } from './protocol.ts';
import { showSchema } from './show-schema.ts';
import { validateWorkspace } from './validate-workspace.ts';

/** Command ids, as contributed in `package.json`. */
export const VALIDATE_WORKSPACE_COMMAND = 'blueprint.validateWorkspace';
export const SHOW_SCHEMA_COMMAND = 'blueprint.showSchema';

export function registerCommands(requests: BlueprintRequests): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(VALIDATE_WORKSPACE_COMMAND, () => validateWorkspace(requests)),
    vscode.commands.registerCommand(SHOW_SCHEMA_COMMAND, () => showSchema(requests)),
  ];
}
