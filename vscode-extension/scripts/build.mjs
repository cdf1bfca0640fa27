// Bundles the extension and the language server into dist/ (CommonJS, as VS Code loads it) and
// copies the schema the server uses by default beside them. The sources are ES modules
// (src/package.json says so, for TypeScript's verbatimModuleSyntax); this package stays CommonJS
// so that Node and VS Code load dist/*.js as the CommonJS they are.
import { build } from 'esbuild';
import { chmod, copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOptions } from './bundle-options.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
const require = createRequire(import.meta.url);

/** @type {import('esbuild').BuildOptions} */
const common = { ...bundleOptions, absWorkingDir: root };

await rm(dist, { recursive: true, force: true });
await mkdir(dist);
await Promise.all([
  build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  build({
    ...common,
    entryPoints: ['src/server.ts'],
    outfile: 'dist/server.js',
    // The server's ES modules read import.meta.url, which CommonJS lacks: give them this file's URL.
    banner: { js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { 'import.meta.url': '__importMetaUrl' },
  }),
]);
await copyFile(path.join(root, '../schemas/blueprint.schema.json'), path.join(dist, 'blueprint.schema.json'));
// The bundled client kills a server that does not stop with this script, looked up beside itself.
const terminate = path.join(dist, 'terminateProcess.sh');
await copyFile(
  path.join(path.dirname(require.resolve('vscode-languageclient/package.json')), 'lib/node/terminateProcess.sh'),
  terminate,
);
await chmod(terminate, 0o755);
