import path from 'node:path';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { BlueprintFormat, DocumentValidator } from '../service/language-service.ts';
import type { Problem } from '../service/problem.ts';
import type { BNode } from '../service/reading/blueprint-node.ts';
import { checkModelineLocation, type ModelinePolicy } from './modeline-policy.ts';
import { SchemaUnavailable, displayLocation } from './schema-reader.ts';
import { configuredSchemaLocation, modelineSchema, type LoadedSchema, type SchemaCache } from './schema-source.ts';

export interface Settings {
  /** `blueprint.schema`: a path (relative to the workspace) or URL; empty for the bundled schema. */
  schema: string;
  /** `blueprint.validate.enable`. */
  validate: boolean;
  /** What a `# yaml-language-server: $schema=...` modeline may name besides files in the workspace folders. */
  modeline: {
    /** `blueprint.modeline.allowedPaths`: more folders or files (relative to the workspace folder); default none. */
    allowedPaths: string[];
    /** `blueprint.modeline.allowDownload`: whether a modeline may name an http(s) URL; default false. */
    allowDownload: boolean;
  };
}

export const defaultSettings: Settings = {
  schema: '',
  validate: true,
  modeline: { allowedPaths: [], allowDownload: false },
};

/** What a feature needs of an open document: its text, its current tree and its schema. */
export interface DocumentState {
  document: TextDocument;
  text: string;
  root: BNode | undefined;
  schema: LoadedSchema;
}

/** The schema a document is checked against, and why it is not the one its modeline names, if so. */
export interface ResolvedSchema {
  schema: LoadedSchema;
  /** A `schema-unavailable` problem on the modeline whose schema was refused or could not be loaded. */
  modelineProblem?: Problem;
}

interface Session {
  location: string;
  validator: DocumentValidator;
}

export function formatOf(document: Pick<TextDocument, 'uri' | 'languageId'>): BlueprintFormat {
  return document.languageId === 'json' || /\.json$/i.test(document.uri) ? 'json' : 'yaml';
}

/**
 * The language-service side of the open documents: for each, the schema it uses and a document
 * validator that keeps unchanged entries between versions. Texts come from the LSP document manager.
 */
export class DocumentSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly schemas: SchemaCache,
    private readonly bundledSchema: string,
    private readonly settingsOf: (uri: string) => Promise<Settings>,
    private readonly workspaceFolders: () => readonly string[],
  ) {}

  async schemaFor(document: TextDocument): Promise<LoadedSchema> {
    return (await this.resolve(document)).schema;
  }

  /**
   * The modeline's schema when the modeline may name it and it loads; otherwise the configured one
   * (setting or bundled) and a problem on the modeline saying why. A configured schema that fails
   * to load throws its `SchemaUnavailable`.
   */
  async resolve(document: TextDocument): Promise<ResolvedSchema> {
    const settings = await this.settingsOf(document.uri);
    const folders = this.workspaceFolders();
    const configured = configuredSchemaLocation(document.uri, settings.schema, this.bundledSchema, folders[0]);
    const modeline = modelineSchema(document.uri, document.getText());
    if (!modeline) return { schema: await this.schemas.get(configured) };
    try {
      await checkModelineLocation(modeline.location, modelinePolicy(settings, folders));
      return { schema: await this.schemas.get(modeline.location) };
    } catch (error) {
      if (!(error instanceof SchemaUnavailable)) throw error;
      const instead =
        settings.schema.trim() === ''
          ? 'the bundled schema'
          : `the blueprint.schema setting (${displayLocation(configured)})`;
      const modelineProblem: Problem = {
        range: modeline.range,
        severity: 'error',
        code: 'schema-unavailable',
        message: `The schema ${modeline.written} ${error.reason}; this file is checked against ${instead} instead.`,
      };
      return { schema: await this.schemas.get(configured), modelineProblem };
    }
  }

  private async session(document: TextDocument): Promise<{ session: Session; resolved: ResolvedSchema }> {
    const resolved = await this.resolve(document);
    const { schema } = resolved;
    let session = this.sessions.get(document.uri);
    if (!session || session.location !== schema.location) {
      session = { location: schema.location, validator: schema.service.createDocumentValidator(formatOf(document)) };
      this.sessions.set(document.uri, session);
    }
    return { session, resolved };
  }

  async state(document: TextDocument): Promise<DocumentState> {
    const { session, resolved } = await this.session(document);
    const text = document.getText();
    return { document, text, root: session.validator.parse(text), schema: resolved.schema };
  }

  async validate(document: TextDocument): Promise<Problem[]> {
    const { session, resolved } = await this.session(document);
    const found = session.validator.validate(document.getText());
    return resolved.modelineProblem ? [resolved.modelineProblem, ...found] : found;
  }

  /** The problems of a document that is not open (no session is kept for it). */
  async validateOnce(document: TextDocument): Promise<Problem[]> {
    const { schema, modelineProblem } = await this.resolve(document);
    const found = schema.service.doValidation(document.getText(), formatOf(document));
    return modelineProblem ? [modelineProblem, ...found] : found;
  }

  close(uri: string): void {
    this.sessions.delete(uri);
  }

  /** After a settings or schema change: every document picks its schema again. */
  reset(): void {
    this.sessions.clear();
    this.schemas.clear();
  }
}

/** The workspace folders and the allowed paths (relative ones resolved against the first folder). */
function modelinePolicy(settings: Settings, workspaceFolders: readonly string[]): ModelinePolicy {
  const base = workspaceFolders[0];
  const extra = settings.modeline.allowedPaths
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && (base !== undefined || path.isAbsolute(entry)))
    .map((entry) => path.resolve(base ?? '/', entry));
  return { allowedPaths: [...workspaceFolders, ...extra], allowDownload: settings.modeline.allowDownload };
}
