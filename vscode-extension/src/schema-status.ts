import * as vscode from 'vscode';
import { isBlueprintDocument } from './blueprint-files.ts';
import { SHOW_SCHEMA_COMMAND } from './commands.ts';
import type { BlueprintRequests } from './protocol.ts';

/** The status bar item with the release label of the schema the active blueprint is checked against. */
export class SchemaStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('blueprint.schema', vscode.StatusBarAlignment.Right, 100);
  /** Counts refreshes, so that a slow answer for an editor left since does not overwrite a newer one. */
  private generation = 0;

  constructor(private readonly requests: Pick<BlueprintRequests, 'schemaInfo'>) {
    this.item.name = 'Blueprint Schema';
    this.item.command = SHOW_SCHEMA_COMMAND;
  }

  /** Shows the schema of `editor`'s document; hides the item for anything that is not a blueprint. */
  async refresh(editor: vscode.TextEditor | undefined = vscode.window.activeTextEditor): Promise<void> {
    const generation = ++this.generation;
    if (!editor || !isBlueprintDocument(editor.document)) {
      this.item.hide();
      return;
    }
    try {
      const info = await this.requests.schemaInfo(editor.document.uri.toString());
      if (generation !== this.generation) return;
      if (!info) {
        this.item.hide();
        return;
      }
      this.item.text = `$(file-code) ${info.title ?? 'Blueprint schema'}`;
      this.item.tooltip = `Blueprint schema: ${info.location}\nClick to open it.`;
    } catch (error) {
      if (generation !== this.generation) return;
      this.item.text = '$(warning) Blueprint schema unavailable';
      this.item.tooltip = error instanceof Error ? error.message : String(error);
    }
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
