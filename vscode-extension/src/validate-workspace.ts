import * as vscode from 'vscode';
import { BLUEPRINT_FILE_GLOBS, EXCLUDED_FILES_GLOB } from './blueprint-files.ts';
import type { BlueprintRequests } from './protocol.ts';

/**
 * Blueprint: Validate Workspace. Finds the files named like blueprints and has the server validate
 * them all, open or not; their problems land in the Problems view.
 */
export async function validateWorkspace(requests: Pick<BlueprintRequests, 'validateFiles'>): Promise<void> {
  const found = await Promise.all(
    BLUEPRINT_FILE_GLOBS.map((glob) => vscode.workspace.findFiles(glob, EXCLUDED_FILES_GLOB)),
  );
  // A file can match both globs (`blueprints/x.blueprint.yaml`).
  const uris = [...new Set(found.flat().map((uri) => uri.toString()))];
  if (uris.length === 0) {
    void vscode.window.showInformationMessage('Blueprint: no blueprint files in this workspace.');
    return;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Blueprint: validating ${plural(uris.length, 'file')}` },
    () => requests.validateFiles(uris),
  );
  const summary = `Blueprint: validated ${plural(result.files, 'file')}, ${plural(result.problems, 'problem')}.`;
  if (result.problems === 0) {
    void vscode.window.showInformationMessage(summary);
    return;
  }
  const choice = await vscode.window.showWarningMessage(summary, 'Show Problems');
  if (choice === 'Show Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
