import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../../language-server/bin/blueprint-language-server.js', import.meta.url));

/** A JSON-RPC message framed as the base protocol says (`lengthDelta` makes the Content-Length lie). */
function frame(message: object, lengthDelta = 0): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length + lengthDelta}\r\n\r\n`), body]);
}

const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { processId: null, rootUri: null, capabilities: {} },
});

/** Bytes that look like nothing: a fixed pseudo-random sequence, so that a failure can be replayed. */
function noise(length: number): Buffer {
  let state = 0x2545f491;
  return Buffer.from(Array.from({ length }, () => (state = (state * 1103515245 + 12345) >>> 0) >>> 24));
}

/**
 * The server over raw stdio: what it writes to stdout and stderr, and its exit. Its stdin stays
 * open throughout, so that an exit is the server's own decision, not the end of its input.
 */
class RawServer {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; at: number }>;

  constructor() {
    this.child = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve({ code, at: Date.now() })));
  }

  write(bytes: Buffer | string): void {
    this.child.stdin!.write(bytes);
  }

  /** Waits until stdout holds the response with `id` (the server is up and has read everything before). */
  async response(id: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(`"id":${id}`)) {
      if (Date.now() > deadline) throw new Error(`no response ${id}; stderr:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Writes `bytes` and resolves with the exit code and how long the exit took after them. */
  async exitAfter(bytes: Buffer | string): Promise<{ code: number | null; ms: number }> {
    const sent = Date.now();
    this.write(bytes);
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still running 10 s after the bytes; stderr:\n${this.stderr}`)), 10_000),
    );
    const { code, at } = await Promise.race([this.exited, timeout]);
    return { code, ms: at - sent };
  }
}

describe('input on stdin that is not LSP framing', () => {
  let server: RawServer | undefined;
  afterEach(() => {
    server?.child.kill();
    server = undefined;
  });

  it.each([
    ['random bytes', noise(4096), /byte 0x[0-9a-f]{2} in a message header/],
    ['a Content-Length that is not a number', 'Content-Length: abc\r\n\r\n{}', /Content-Length that is not a positive/],
    ['a negative Content-Length', 'Content-Length: -5\r\n\r\n{}', /Content-Length that is not a positive/],
    ['a header without Content-Length', 'Content-Type: application/json\r\n\r\n{}', /without Content-Length/],
    ['a header line without a colon', 'Content-Length 2\r\n\r\n{}', /not "Name: value"/],
    ['printable text without a line end', 'x'.repeat(20_000), /header longer than 8192 bytes/],
    ['a body that is not JSON', 'Content-Length: 5\r\n\r\nhello', /body does not start with a JSON object/],
    [
      'a Content-Length shorter than its body',
      Buffer.concat([frame(initialize(2), -3), frame(initialize(3))]),
      /not "Name: value"/,
    ],
  ])('ends the server with code 1 and the reason on stderr: %s', async (_, bytes, reason) => {
    server = new RawServer();
    // A session that worked until then: the server is up and has answered.
    server.write(frame(initialize(1)));
    await server.response(1);
    const { code, ms } = await server.exitAfter(bytes);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(3_000);
    expect(server.stderr).toMatch(/stdin does not carry LSP messages/);
    expect(server.stderr).toMatch(reason);
  });

  it('ends a server that receives garbage before any message', async () => {
    server = new RawServer();
    const { code } = await server.exitAfter(noise(64));
    expect(code).toBe(1);
    expect(server.stderr).toMatch(/stdin does not carry LSP messages/);
  });

  it('leaves valid framing alone, however it is cut into chunks', async () => {
    server = new RawServer();
    const initialized = Buffer.from('\n{"jsonrpc":"2.0","method":"initialized","params":{}}');
    const all = Buffer.concat([
      frame(initialize(1)),
      // Content-Type too, first; names in other cases; a body after white space.
      Buffer.from(
        `content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH: ${initialized.length}\r\n\r\n`,
      ),
      initialized,
      frame({ jsonrpc: '2.0', id: 2, method: 'shutdown' }),
    ]);
    for (let at = 0; at < all.length; at += 7) {
      server.write(all.subarray(at, at + 7));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await server.response(2);
    const { code } = await server.exitAfter(frame({ jsonrpc: '2.0', method: 'exit' }));
    expect(code).toBe(0);
    expect(server.stderr).not.toMatch(/stdin does not carry/);
  });
});
