import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { allowedValues } from './cli/allowed-values.ts';
import type { LintResult } from './cli/diagnostics.ts';
import { countProblems } from './cli/diagnostics.ts';
import { formatGithub } from './cli/format-github.ts';
import { formatJson } from './cli/format-json.ts';
import { formatSarif } from './cli/format-sarif.ts';
import { formatStylish } from './cli/format-stylish.ts';
import { expandGlob, isGlob } from './cli/glob.ts';
import { createLanguageService, type LanguageService } from './service/language-service.ts';

const formatters = {
  stylish: formatStylish,
  json: formatJson,
  github: formatGithub,
  sarif: formatSarif,
} as const satisfies Record<string, (results: readonly LintResult[]) => string>;

const DEFAULT_SCHEMA = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));

const USAGE = `Usage: blueprint-lint [--schema FILE] [--format stylish|json|github|sarif] FILES_OR_GLOBS...

Checks blueprint files (.json as JSON, anything else as YAML) against the blueprint schema.
Globs support *, ? and ** (quote them to bypass the shell); node_modules and dot-directories are skipped.

Options:
  --schema FILE    the blueprint JSON Schema (default: schemas/blueprint.schema.json of this repository)
  --format NAME    stylish (default), json, github or sarif
  -h, --help       show this help

Exit status: 0 no errors, 1 errors found, 2 usage error.`;

class UsageError extends Error {}

function loadService(schemaFile: string): LanguageService {
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read schema ${schemaFile}: ${error instanceof Error ? error.message : error}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new UsageError(`invalid schema ${schemaFile}: not a JSON object`);
  }
  try {
    return createLanguageService({ schema });
  } catch (error) {
    throw new UsageError(`invalid schema ${schemaFile}: ${error instanceof Error ? error.message : error}`);
  }
}

function expandFiles(patterns: readonly string[]): string[] {
  const files = new Set<string>();
  for (const pattern of patterns) {
    if (isGlob(pattern)) {
      const matches = expandGlob(pattern);
      if (matches.length === 0) throw new UsageError(`no files match ${pattern}`);
      for (const match of matches) files.add(match);
    } else {
      let isFile = false;
      try {
        isFile = statSync(pattern).isFile();
      } catch {
        throw new UsageError(`no files match ${pattern}`);
      }
      if (!isFile) throw new UsageError(`not a file: ${pattern}`);
      files.add(pattern);
    }
  }
  return [...files];
}

/** Runs the linter on command-line arguments; returns the exit status (0 clean, 1 errors, 2 usage error). */
export function main(args: readonly string[], out = process.stdout, err = process.stderr): number {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: {
        schema: { type: 'string' },
        format: { type: 'string', default: 'stylish' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      out.write(`${USAGE}\n`);
      return 0;
    }
    const format = values.format ?? 'stylish';
    if (!Object.hasOwn(formatters, format)) {
      throw new UsageError(`unknown format ${format} (expected ${Object.keys(formatters).join(', ')})`);
    }
    if (positionals.length === 0) throw new UsageError('no files given');
    const service = loadService(values.schema ?? DEFAULT_SCHEMA);
    const results: LintResult[] = expandFiles(positionals).map((file) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : error}`);
      }
      const kind = file.endsWith('.json') ? 'json' : 'yaml';
      const problems = service.doValidation(text, kind);
      return {
        file,
        text,
        problems,
        ...(format === 'stylish' ? { allowedValues: allowedValues(service, text, kind, problems) } : {}),
      };
    });
    const output = formatters[format as keyof typeof formatters](results);
    if (output !== '') out.write(`${output}\n`);
    return countProblems(results).errors > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      // parseArgs reports unknown options and missing values as TypeErrors with an ERR_PARSE_ARGS_* code.
      err.write(`blueprint-lint: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(main(process.argv.slice(2)));
}
