import * as vscode from 'vscode';
import { isBlueprintDocument } from './blueprint-files.ts';
import type { BlueprintRequests } from './protocol.ts';

/**
 * Blueprint: Show Schema. Opens the schema the active blueprint is checked against (modeline,
 * `blueprint.schema` or the shipped one, as the server resolved it): a file in an editor, a web
 * address in the browser.
 */
export async function showSchema(requests: Pick<BlueprintRequests, 'schemaInfo'>): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document || !isBlueprintDocument(document)) {
    void vscode.window.showInformationMessage(
      'Blueprint: open a blueprint file to see the schema it is checked against.',
    );
    return;
  }
  const info = await requests.schemaInfo(document.uri.toString());
  if (!info) {
    void vscode.window.showWarningMessage(
      'Blueprint: the schema of this file could not be loaded; the first line of the file shows why.',
    );
    return;
  }
  const location = vscode.Uri.parse(info.location);
  if (location.scheme === 'http' || location.scheme === 'https') {
    await vscode.env.openExternal(location);
  } else {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(location), { preview: true });
  }
}
