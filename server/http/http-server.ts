import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from './errors.ts';

/**
 * Room for the request line and headers. The longest URL the contract allows (four id filters of
 * 100 UUIDs each, a 200-character search, dates and amounts: about 25 KB, test/api/hostile-input)
 * must fit with margin; Node's default of 16 KiB does not hold it.
 */
export const MAX_HEADER_SIZE = 64 * 1024;

/** What Node's HTTP parser reports, as status and error code of the documented error body. */
const PARSER_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'headers_too_large',
    `The request line and headers are larger than the limit of ${MAX_HEADER_SIZE} bytes`,
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request was not received in time'],
};
const MALFORMED: [number, string, string] = [400, 'bad_request', 'The request is not well-formed HTTP'];

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** Writes a whole response on a socket that never reached Koa, and closes it. */
function answerRaw(socket: Duplex, status: number, code: string, message: string): void {
  const body: ErrorBody = { error: code, message, errors: [{ message }] };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}

/**
 * The HTTP server for `handle` (the app's `app.callback()`), with the settings production, tests
 * and benchmarks share: the header limit, and answers in the documented error shape for requests
 * Node refuses before the app sees them (headers too large, malformed HTTP, CONNECT), where Node
 * itself would send a bare status line.
 */
export function createHttpServer(handle: RequestListener): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, handle);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way (a timeout mid-answer) cannot be replaced; Node's own handler checks the same.
    const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const [status, code, message] = PARSER_ERRORS[error.code ?? ''] ?? MALFORMED;
    answerRaw(socket, status, code, message);
  });
  // CONNECT never reaches the request handler; without a listener Node just drops the connection.
  server.on('connect', (request: { method?: string; url?: string }, socket: Duplex) => {
    answerRaw(socket, 405, 'method_not_allowed', `${request.method} is not allowed on ${request.url}`);
  });
  return server;
}
