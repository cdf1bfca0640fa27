/** Rewrites the blueprint rules table in README.md from the language service's code table. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withRulesTable } from '../language-server/src/docs/rules-table.ts';

const file = new URL('../README.md', import.meta.url);
writeFileSync(file, withRulesTable(readFileSync(file, 'utf8')));
process.stdout.write('wrote the blueprint rules table in README.md\n');
