import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { BNode } from '../service/blueprint-node.ts';
import type { BlueprintFormat, DocumentValidator } from '../service/language-service.ts';
import type { Problem } from '../service/problem.ts';
import { schemaLocation, type LoadedSchema, type SchemaCache } from './schema-source.ts';

export interface Settings {
  /** `blueprint.schema`: a path (relative to the workspace) or URL; empty for the bundled schema. */
  schema: string;
  /** `blueprint.validate.enable`. */
  validate: boolean;
}

export const defaultSettings: Settings = { schema: '', validate: true };

/** What a feature needs of an open document: its text, its current tree and its schema. */
export interface DocumentState {
  document: TextDocument;
  text: string;
  root: BNode | undefined;
  schema: LoadedSchema;
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
    private readonly workspaceFolder: () => string | undefined,
  ) {}

  async schemaFor(document: TextDocument): Promise<LoadedSchema> {
    const settings = await this.settingsOf(document.uri);
    const text = document.getText();
    const location = schemaLocation(document.uri, text, settings.schema, this.bundledSchema, this.workspaceFolder());
    return this.schemas.get(location);
  }

  private async session(document: TextDocument): Promise<{ session: Session; schema: LoadedSchema }> {
    const schema = await this.schemaFor(document);
    let session = this.sessions.get(document.uri);
    if (!session || session.location !== schema.location) {
      session = { location: schema.location, validator: schema.service.createDocumentValidator(formatOf(document)) };
      this.sessions.set(document.uri, session);
    }
    return { session, schema };
  }

  async state(document: TextDocument): Promise<DocumentState> {
    const { session, schema } = await this.session(document);
    const text = document.getText();
    return { document, text, root: session.validator.parse(text), schema };
  }

  async validate(document: TextDocument): Promise<Problem[]> {
    const { session } = await this.session(document);
    return session.validator.validate(document.getText());
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
