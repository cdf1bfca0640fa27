import { fileURLToPath } from 'node:url';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { connectionOptions } from './server/connection-options.ts';
import { watchFraming } from './server/stdio-framing.ts';
import { startServer } from './server/server.ts';

/**
 * The language server process: `--stdio`, `--node-ipc` or `--socket=N` (read by
 * `createConnection`). `BLUEPRINT_SCHEMA` overrides the bundled schema (the VS Code extension sets
 * it to the copy it ships).
 */
export function main(): void {
  const connection = createConnection(ProposedFeatures.all, connectionOptions);
  const bundledSchema =
    process.env.BLUEPRINT_SCHEMA ?? fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
  startServer(connection, { bundledSchema });
  connection.listen();
  if (transport() === '--stdio') watchFraming(process.stdin, exitOnBrokenInput);
}

/** The transport argument, found the way `createConnection` finds it: the first one given. */
function transport(): string | undefined {
  return process.argv.slice(2).find((arg) => /^--(node-ipc|stdio|socket|pipe)(=|$)/.test(arg));
}

/**
 * Input that is not LSP framing cannot be resynchronised: say why on stderr (stdout carries the
 * protocol; the console is redirected to the client in stdio mode) and exit non-zero, so that the
 * client sees a crash and starts a new server instead of waiting on a silent one.
 */
function exitOnBrokenInput(reason: string): void {
  process.stdin.pause();
  process.exitCode = 1;
  const message = `blueprint-language-server: stdin does not carry LSP messages (${reason}); exiting with code 1 so that the client starts a new server.\n`;
  process.stderr.write(message, () => process.exit(1));
  // Should stderr never drain (a client that does not read it), exit anyway.
  setTimeout(() => process.exit(1), 1_000);
}
