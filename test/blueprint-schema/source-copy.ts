import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { SCHEMA_SOURCE_DIR } from '../../scripts/blueprint-schema/generate.ts';

/**
 * A copy of schemas/source in a temporary folder, removed after the file's tests: a case writes one
 * source file over it (`write`) and generates from `directory`.
 */
export function sourceCopy(): { directory: string; write: (file: string, text: string) => void } {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'blueprint-source-'));
  for (const file of readdirSync(SCHEMA_SOURCE_DIR)) {
    if (file.endsWith('.yaml')) copyFileSync(path.join(SCHEMA_SOURCE_DIR, file), path.join(directory, file));
  }
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  return { directory, write: (file, text) => writeFileSync(path.join(directory, file), text) };
}
