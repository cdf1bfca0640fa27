import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Range } from '../service/problem.ts';
import { createLanguageService, type LanguageService } from '../service/language-service.ts';
import { defaultSchemaLimits, readSchemaText, SchemaUnavailable, type SchemaLimits } from './schema-reader.ts';

/** `# yaml-language-server: $schema=<location>` on a comment line: the schema a file asks for. */
const MODELINE = /^#\s*yaml-language-server\s*:\s*\$schema=(\S+)/dm;

/** A schema named by a document's modeline. */
export interface ModelineSchema {
  /** The location as written. */
  written: string;
  /** Where it is written in the document (offsets). */
  range: Range;
  /** Absolute: a file URL (a path is relative to the document) or the URL as written. */
  location: string;
}

/** The modeline of a document (looked for in its first 4 KiB), if it has one. */
export function modelineSchema(documentUri: string, text: string): ModelineSchema | undefined {
  const match = MODELINE.exec(text.slice(0, 4096));
  if (!match?.indices?.[1]) return undefined;
  const written = match[1]!;
  return { written, range: match.indices[1], location: absoluteLocation(written, baseOf(documentUri)) };
}

/** Where a document's schema comes from when no modeline names one: the setting, else the bundled one. */
export function configuredSchemaLocation(
  documentUri: string,
  setting: string | undefined,
  bundled: string,
  workspaceFolder: string | undefined,
): string {
  if (setting && setting.trim() !== '') return absoluteLocation(setting.trim(), workspaceFolder ?? baseOf(documentUri));
  return absoluteLocation(bundled, undefined);
}

function baseOf(documentUri: string): string | undefined {
  return documentUri.startsWith('file:') ? path.dirname(fileURLToPath(documentUri)) : undefined;
}

/** A URL as is; a path made absolute (relative to `base`) and turned into a file URL. */
function absoluteLocation(location: string, base: string | undefined): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) || location.startsWith('file:')) return location;
  return pathToFileURL(path.resolve(base ?? process.cwd(), location)).href;
}

export interface LoadedSchema {
  location: string;
  service: LanguageService;
  /** The schema's title: the release label, e.g. `idp 2025.12 Blueprint schema`. */
  title: string | undefined;
}

/**
 * Schemas by location, loaded once (a failed load is retried on the next request). A failure is a
 * `SchemaUnavailable` whose message names the location and says what is wrong.
 */
export class SchemaCache {
  private readonly loaded = new Map<string, Promise<LoadedSchema>>();

  constructor(private readonly limits: SchemaLimits = defaultSchemaLimits) {}

  get(location: string): Promise<LoadedSchema> {
    let pending = this.loaded.get(location);
    if (!pending) {
      pending = loadSchema(location, this.limits);
      this.loaded.set(location, pending);
      pending.catch(() => this.loaded.delete(location));
    }
    return pending;
  }

  clear(): void {
    this.loaded.clear();
  }
}

async function loadSchema(location: string, limits: SchemaLimits): Promise<LoadedSchema> {
  try {
    const text = await readSchemaText(location, limits);
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch {
      // Not the parser's message: it quotes the text, and the file may be anything (/etc/passwd).
      throw new SchemaUnavailable('is not valid JSON');
    }
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      throw new SchemaUnavailable('is not a JSON object, so not a JSON Schema');
    }
    const service = serviceFor(schema);
    if (service.index.modelNames.length === 0) {
      throw new SchemaUnavailable('is not a blueprint schema (it defines no entry models)');
    }
    return { location, service, title: service.index.title };
  } catch (error) {
    if (error instanceof SchemaUnavailable) throw new SchemaUnavailable(error.reason, location);
    throw error;
  }
}

function serviceFor(schema: object): LanguageService {
  try {
    return createLanguageService({ schema });
  } catch {
    throw new SchemaUnavailable('is not a blueprint schema the service can read');
  }
}
