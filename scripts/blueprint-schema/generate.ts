import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadBlueprintSource } from './blueprint-source.ts';
import { buildBlueprintSchema } from './build-schema.ts';
import { formatSchemaJson } from './schema-json.ts';

/** The source the team maintains. */
export const SCHEMA_SOURCE_DIR = fileURLToPath(new URL('../../schemas/source/', import.meta.url));

/** The generated schema (committed; never edited by hand). */
export const SCHEMA_FILE = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));

/** The text of the schema file generated from the source in `sourceDir`. */
export function generateBlueprintSchemaText(sourceDir: string = SCHEMA_SOURCE_DIR): string {
  return formatSchemaJson(buildBlueprintSchema(loadBlueprintSource(sourceDir)));
}

/** Generates the schema and writes it to `file`; returns the text written. */
export function writeBlueprintSchema(sourceDir: string = SCHEMA_SOURCE_DIR, file: string = SCHEMA_FILE): string {
  const text = generateBlueprintSchemaText(sourceDir);
  writeFileSync(file, text);
  return text;
}
