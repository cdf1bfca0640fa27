#!/usr/bin/env node
// Runs the TypeScript language server (src/server-main.ts) in this process through tsx's ESM loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../src/server-main.ts', import.meta.url).href);
main();
