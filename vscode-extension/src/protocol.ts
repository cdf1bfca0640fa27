/** The custom requests of the blueprint language server (`language-server/src/server/handlers/blueprint-requests.ts`). */
export const SCHEMA_INFO_REQUEST = 'blueprint/schemaInfo';
export const VALIDATE_FILES_REQUEST = 'blueprint/validateFiles';

/** The schema a document is checked against. */
export interface SchemaInfo {
  /** The schema's title: its release label, e.g. `idp 2025.12 Blueprint schema`; null when it has none. */
  title: string | null;
  /** A `file:` or `http(s):` URL. */
  location: string;
}

export interface ValidateFilesResult {
  files: number;
  problems: number;
}

/** What the extension needs of the language client: `LanguageClient` satisfies it. */
export interface RequestSender {
  sendRequest<R>(method: string, params: unknown): Promise<R>;
}

/** The custom requests, typed. */
export interface BlueprintRequests {
  /** The schema of an open document, or null when the server does not have the document. */
  schemaInfo(uri: string): Promise<SchemaInfo | null>;
  /** Validates files (open or on disk) and publishes their diagnostics. */
  validateFiles(uris: string[]): Promise<ValidateFilesResult>;
}

export function blueprintRequests(client: RequestSender): BlueprintRequests {
  return {
    schemaInfo: (uri) => client.sendRequest<SchemaInfo | null>(SCHEMA_INFO_REQUEST, { uri }),
    validateFiles: (uris) => client.sendRequest<ValidateFilesResult>(VALIDATE_FILES_REQUEST, { uris }),
  };
}
