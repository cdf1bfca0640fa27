/**
 * Writes schemas/blueprint.schema.json from schemas/source/ (`npm run generate:schema`).
 * The source's README explains the notation; this file only runs the generator.
 */
import path from 'node:path';
import { SCHEMA_FILE, writeBlueprintSchema } from './blueprint-schema/generate.ts';
import { SourceError } from './blueprint-schema/blueprint-source.ts';

try {
  const text = writeBlueprintSchema();
  const kilobytes = (Buffer.byteLength(text) / 1024).toFixed(0);
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)} (${kilobytes} KiB)`);
} catch (error) {
  if (!(error instanceof SourceError)) throw error;
  console.error(`schemas/source/${error.message}`);
  process.exitCode = 1;
}
