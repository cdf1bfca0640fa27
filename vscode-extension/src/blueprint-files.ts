/** The language id the extension contributes (`package.json` `contributes.languages`). */
export const BLUEPRINT_LANGUAGE_ID = 'blueprint';

/** Files that are blueprints by their name: the `extensions` and `filenamePatterns` of the language. */
export const BLUEPRINT_FILE_GLOBS = ['**/*.blueprint.{yaml,yml,json}', '**/blueprints/**/*.{yaml,yml}'];

/** Never searched for blueprints. */
export const EXCLUDED_FILES_GLOB = '**/node_modules/**';

/**
 * The documents the language server serves: the blueprint language, plus YAML and JSON documents
 * named like blueprints (a `files.associations` setting or another extension may have claimed them).
 */
export const DOCUMENT_SELECTOR = [
  { language: BLUEPRINT_LANGUAGE_ID },
  { language: 'yaml', pattern: '**/*.blueprint.{yaml,yml}' },
  { language: 'yaml', pattern: '**/blueprints/**/*.{yaml,yml}' },
  { language: 'json', pattern: '**/*.blueprint.json' },
];

const BLUEPRINT_NAME = /\.blueprint\.(?:ya?ml|json)$/i;
const IN_BLUEPRINTS_FOLDER = /[\\/]blueprints[\\/](?:.*[\\/])?[^\\/]+\.ya?ml$/i;

/** Whether a document is served by the language server: `DOCUMENT_SELECTOR` as a predicate. */
export function isBlueprintDocument(document: { languageId: string; fileName: string }): boolean {
  switch (document.languageId) {
    case BLUEPRINT_LANGUAGE_ID:
      return true;
    case 'yaml':
      return BLUEPRINT_NAME.test(document.fileName) || IN_BLUEPRINTS_FOLDER.test(document.fileName);
    case 'json':
      return /\.blueprint\.json$/i.test(document.fileName);
    default:
      return false;
  }
}
