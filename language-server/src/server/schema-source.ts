import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLanguageService, type LanguageService } from '../service/language-service.ts';

/** `# yaml-language-server: $schema=<location>` on a comment line: the schema a file asks for. */
const MODELINE = /^#\s*yaml-language-server\s*:\s*\$schema=(\S+)/m;

/** Where a document's schema comes from, most specific first: its modeline, the setting, the bundled one. */
export function schemaLocation(
  documentUri: string,
  text: string,
  setting: string | undefined,
  bundled: string,
  workspaceFolder: string | undefined,
): string {
  const modeline = MODELINE.exec(text.slice(0, 4096))?.[1];
  if (modeline) return absoluteLocation(modeline, baseOf(documentUri));
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

/** Schemas by location, loaded once (a failed load is retried on the next request). */
export class SchemaCache {
  private readonly loaded = new Map<string, Promise<LoadedSchema>>();

  get(location: string): Promise<LoadedSchema> {
    let pending = this.loaded.get(location);
    if (!pending) {
      pending = loadSchema(location);
      this.loaded.set(location, pending);
      pending.catch(() => this.loaded.delete(location));
    }
    return pending;
  }

  clear(): void {
    this.loaded.clear();
  }
}

async function loadSchema(location: string): Promise<LoadedSchema> {
  const text = location.startsWith('file:')
    ? await readFile(fileURLToPath(location), 'utf8')
    : await fetchText(location);
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new Error(`The schema at ${location} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new Error(`The schema at ${location} is not a JSON object.`);
  }
  const service = createLanguageService({ schema });
  return { location, service, title: service.index.title };
}

async function fetchText(location: string): Promise<string> {
  const response = await fetch(location, { signal: AbortSignal.timeout(15_000) });
  if (!response.ok) throw new Error(`The schema at ${location} answered HTTP ${response.status}.`);
  return response.text();
}
