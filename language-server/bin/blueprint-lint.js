#!/usr/bin/env node
// Runs the TypeScript linter (src/cli.ts) in this process through tsx's ESM loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../src/cli.ts', import.meta.url).href);
const code = main(process.argv.slice(2));
// Let stdout drain before exiting (a pipe may still hold a large report).
process.stdout.write('', () => process.exit(code));
