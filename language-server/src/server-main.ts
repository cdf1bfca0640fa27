import { fileURLToPath } from 'node:url';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server/server.ts';

/**
 * The language server process: `--stdio`, `--node-ipc` or `--socket=N` (read by
 * `createConnection`). `BLUEPRINT_SCHEMA` overrides the bundled schema (the VS Code extension sets
 * it to the copy it ships).
 */
export function main(): void {
  const connection = createConnection(ProposedFeatures.all);
  const bundledSchema =
    process.env.BLUEPRINT_SCHEMA ?? fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
  startServer(connection, { bundledSchema });
  connection.listen();
}
