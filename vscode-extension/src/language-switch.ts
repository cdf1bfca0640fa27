import * as vscode from 'vscode';
import { isBlueprintText } from './blueprint-detection.ts';
import { BLUEPRINT_LANGUAGE_ID } from './blueprint-files.ts';

/**
 * Gives the blueprint language to YAML documents whose content is a blueprint (their names did
 * not say so), now and whenever one opens. `onSwitched` runs with the document in its new language.
 */
export function switchBlueprintYamlDocuments(onSwitched: (document: vscode.TextDocument) => void): vscode.Disposable {
  // Each document is switched at most once: if it is YAML again later, the user chose YAML.
  const switched = new Set<string>();
  const consider = (document: vscode.TextDocument): void => {
    const key = document.uri.toString();
    if (document.languageId !== 'yaml' || switched.has(key) || !isBlueprintText(document.getText())) return;
    switched.add(key);
    vscode.languages.setTextDocumentLanguage(document, BLUEPRINT_LANGUAGE_ID).then(onSwitched, () => {
      // The document was closed in the meantime: nothing to switch.
    });
  };
  vscode.workspace.textDocuments.forEach(consider);
  return vscode.workspace.onDidOpenTextDocument(consider);
}
