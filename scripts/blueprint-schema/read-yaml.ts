import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * Reads one YAML file of the schema source as plain data (YAML 1.2 core schema: strings,
 * numbers, booleans, null, lists and mappings; duplicate keys are an error).
 *
 * The only place that knows which YAML parser is used, so that swapping it is a one-file change.
 */
export function readYamlFile(file: string): unknown {
  try {
    return parse(readFileSync(file, 'utf8'), { schema: 'core', uniqueKeys: true });
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
}
