import { fileURLToPath } from 'node:url';
import type { ServerCapabilities } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { toDiagnostics } from '../convert.ts';
import { readLocalText } from '../schema-reader.ts';
import type { HandlerContext } from './handler-context.ts';

/** Custom requests of the blueprint extension (and any client that wants them). */
export const SCHEMA_INFO_REQUEST = 'blueprint/schemaInfo';
export const VALIDATE_FILES_REQUEST = 'blueprint/validateFiles';

/** Largest blueprint Validate Workspace reads from disk, and how long a read may take. */
const MAX_BLUEPRINT_BYTES = 32 * 1024 * 1024;
const READ_TIMEOUT_MS = 10_000;

/** `blueprint/schemaInfo` (the schema a document is checked against) and `blueprint/validateFiles`. */
export function registerBlueprintRequests(context: HandlerContext): ServerCapabilities {
  const { connection, safely, sessions, documentOf, log } = context;

  connection.onRequest(
    SCHEMA_INFO_REQUEST,
    safely(SCHEMA_INFO_REQUEST, null, async (params: { uri: string }) => {
      const document = documentOf(params.uri);
      if (!document) return null;
      const schema = await sessions.schemaFor(document);
      return { title: schema.title ?? null, location: schema.location };
    }),
  );

  // Files that are not open are read from disk (regular files only, bounded: a FIFO named like a
  // blueprint must not hold a file-system thread); each gets its diagnostics published.
  connection.onRequest(
    VALIDATE_FILES_REQUEST,
    safely(VALIDATE_FILES_REQUEST, { files: 0, problems: 0 }, async (params: { uris: string[] }) => {
      let problems = 0;
      let files = 0;
      for (const uri of params.uris) {
        const open = documentOf(uri);
        // An open document's problems are those of its session (kept per version); others are read from disk.
        let text: string | undefined;
        if (!open) {
          try {
            text = await readLocalText(fileURLToPath(uri), MAX_BLUEPRINT_BYTES, READ_TIMEOUT_MS);
          } catch (error) {
            log(`blueprint: Validate Workspace skipped ${fileURLToPath(uri)}: ${(error as Error).message}`);
            continue;
          }
        }
        const document = open ?? TextDocument.create(uri, /\.json$/i.test(uri) ? 'json' : 'yaml', 0, text!);
        const found = open ? await sessions.validate(open) : await sessions.validateOnce(document);
        problems += found.length;
        files += 1;
        await connection.sendDiagnostics({ uri, diagnostics: toDiagnostics(document, found) });
      }
      return { files, problems };
    }),
  );

  return {};
}
