/**
 * One cold validation in a process of its own, as a language server does it when it starts with a
 * file open: schema load, then the first validation of the file (timed). Run by
 * blueprints.bench.ts, as ES modules (`node --import tsx bench/blueprint-cold-child.ts <schema> <blueprint>`) and bundled;
 * prints `{"validationMs": ..., "problems": ...}`.
 */
import { readFileSync } from 'node:fs';
import { createLanguageService } from '../language-server/src/service/language-service.ts';

const [schemaPath, blueprintPath] = process.argv.slice(2);
if (!schemaPath || !blueprintPath) throw new Error('usage: blueprint-cold-child.ts <schema> <blueprint>');
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });
const text = readFileSync(blueprintPath, 'utf8');
const started = performance.now();
const problems = service.doValidation(text);
const validationMs = performance.now() - started;
process.stdout.write(JSON.stringify({ validationMs, problems: problems.length }) + '\n');
