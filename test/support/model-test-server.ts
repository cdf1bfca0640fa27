import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the server does with one `POST /v1/chat/completions`, in the order scripted.
 *
 * - `text`: the assistant answers with text, streamed as `chunks` content deltas (default: about 8 characters each)
 *   with `delayMs` between them (default 0; a provider trickling tokens), or as one `chat.completion` when the
 *   request has no `stream: true`.
 * - `toolCalls`: the assistant asks for tool calls (finish_reason `tool_calls`), after `text` if given. Object
 *   arguments are JSON-encoded; the arguments string is streamed in several fragments, as real providers do. Ids
 *   default to `call_<n>`, numbered across the server's life (restarting at 1 on `reset()`).
 * - `status`: an HTTP error in OpenAI's shape `{ error: { message, type, param, code } }`, with extra `headers`
 *   (e.g. `retry-after`: seconds or an HTTP date). 401, 404 and 429 get OpenAI's codes (`invalid_api_key`, `model_not_found`,
 *   `rate_limit_exceeded`).
 * - `hang`: takes the request and never answers, for client timeouts; `close()` still ends promptly.
 * - `malformed`: streams the deltas of `text` (default `partial answer`), then a `data:` line that is not JSON.
 * - `cut`: streams the deltas of `text` (default `partial answer`), then destroys the socket mid-stream.
 */
export type ScriptedReply =
  | { text: string; chunks?: number; delayMs?: number }
  | { toolCalls: { id?: string; name: string; arguments: string | Record<string, unknown> }[]; text?: string }
  | { status: number; message?: string; headers?: Record<string, string> }
  | { hang: true }
  | { malformed: true; text?: string }
  | { cut: true; text?: string };

export interface RecordedRequest {
  path: string;
  /** When the request arrived (Date.now()), for tests of how long a client waited between two. */
  receivedAt: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: any;
}

export interface ModelTestServer {
  /** e.g. http://127.0.0.1:PORT/v1 — what goes into AI_BASE_URL / the openai client's baseURL */
  baseUrl: string;
  /** every request received, in order, with its parsed JSON body */
  requests: RecordedRequest[];
  /** queue replies; each incoming POST /v1/chat/completions takes the next one */
  script(...replies: ScriptedReply[]): void;
  /** replies not yet consumed */
  pending(): number;
  /** forget queued replies and recorded requests */
  reset(): void;
  close(): Promise<void>;
}

/** The one model `GET /v1/models` lists, and the one echoed when a request names none. */
const TEST_MODEL = 'test-model';
const CHARS_PER_DELTA = 8;
const DEFAULT_PARTIAL_TEXT = 'partial answer';

interface ToolCallReply {
  id: string;
  name: string;
  arguments: string;
}

/** What one completion says, in whichever form (stream or whole) the request asked for. */
interface Completion {
  id: string;
  model: string;
  created: number;
  promptTokens: number;
  includeUsage: boolean;
}

/** Starts the server on a free loopback port. */
export async function startModelTestServer(): Promise<ModelTestServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let toolCallCount = 0;
  let completionCount = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug here must fail the test that hit it, not hang it.
      if (!res.headersSent) sendError(res, 500, `model test server failed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    const body = parseJson(raw);
    requests.push({ path, receivedAt, headers: { ...req.headers }, body });

    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: TEST_MODEL, object: 'model', created: 0, owned_by: 'model-test-server' }],
      });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      // OpenAI's own answer to an unknown route: a 404 that is not about the model.
      sendError(res, 404, `Invalid URL (${req.method} ${path})`, {}, { type: 'invalid_request_error', code: null });
      return;
    }
    if (typeof body !== 'object' || body === null) {
      sendError(res, 400, 'The request body must be a JSON object.');
      return;
    }

    const reply = queue.shift();
    if (!reply) {
      sendError(res, 500, `No reply was scripted for request #${requests.length} (POST /v1/chat/completions).`);
      return;
    }
    completionCount += 1;
    const completion: Completion = {
      id: `chatcmpl-test-${completionCount}`,
      model: typeof body.model === 'string' ? body.model : TEST_MODEL,
      created: Math.floor(Date.now() / 1000),
      promptTokens: estimateTokens(JSON.stringify(body.messages ?? [])),
      includeUsage: body.stream_options?.include_usage === true,
    };
    await answer(res, reply, completion, body.stream === true);
  }

  async function answer(res: ServerResponse, reply: ScriptedReply, completion: Completion, stream: boolean) {
    if ('hang' in reply) return;
    if ('status' in reply) {
      sendError(res, reply.status, reply.message ?? defaultErrorMessage(reply.status, completion.model), reply.headers);
      return;
    }
    if ('malformed' in reply || 'cut' in reply) {
      const text = reply.text ?? DEFAULT_PARTIAL_TEXT;
      await (stream ? streamBrokenText(res, completion, text, reply) : sendBrokenWhole(res, text, reply));
      return;
    }
    const text = 'text' in reply ? reply.text : undefined;
    const toolCalls = 'toolCalls' in reply ? reply.toolCalls.map(toToolCallReply) : [];
    const delayMs = 'delayMs' in reply ? (reply.delayMs ?? 0) : 0;
    const chunks = 'chunks' in reply ? reply.chunks : undefined;
    if (stream) await streamCompletion(res, completion, { text, toolCalls, chunks, delayMs });
    else sendWholeCompletion(res, completion, text, toolCalls);
  }

  function toToolCallReply(call: { id?: string; name: string; arguments: string | Record<string, unknown> }) {
    toolCallCount += 1;
    return {
      id: call.id ?? `call_${toolCallCount}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    reset() {
      queue.length = 0;
      requests.length = 0;
      toolCallCount = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging and streaming requests would otherwise hold close() open until the client gives up.
        server.closeAllConnections();
      }),
  };
}

interface StreamPlan {
  text: string | undefined;
  toolCalls: ToolCallReply[];
  chunks: number | undefined;
  delayMs: number;
}

async function streamCompletion(res: ServerResponse, completion: Completion, plan: StreamPlan): Promise<void> {
  startEventStream(res);
  const send = (delta: object, finishReason: string | null = null) =>
    writeEvent(res, chunkOf(completion, [{ index: 0, delta, logprobs: null, finish_reason: finishReason }]));

  // As OpenAI does: the role comes alone first, with content null when the answer is only tool calls.
  if (!(await send({ role: 'assistant', content: plan.text === undefined ? null : '' }))) return;
  const textDeltas = plan.text === undefined ? [] : splitText(plan.text, plan.chunks);
  for (const [i, piece] of textDeltas.entries()) {
    if (i > 0 && plan.delayMs > 0) await sleep(plan.delayMs);
    if (!(await send({ content: piece }))) return;
  }
  for (const [index, call] of plan.toolCalls.entries()) {
    const opening = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    if (!(await send({ tool_calls: [opening] }))) return;
    for (const fragment of splitText(call.arguments, undefined, 2)) {
      if (!(await send({ tool_calls: [{ index, function: { arguments: fragment } }] }))) return;
    }
  }
  if (!(await send({}, plan.toolCalls.length > 0 ? 'tool_calls' : 'stop'))) return;
  if (completion.includeUsage) {
    const usage = usageOf(completion, plan.text, plan.toolCalls);
    if (!(await writeEvent(res, { ...chunkOf(completion, []), usage }))) return;
  }
  await write(res, 'data: [DONE]\n\n');
  res.end();
}

async function streamBrokenText(
  res: ServerResponse,
  completion: Completion,
  text: string,
  how: { malformed: true } | { cut: true },
): Promise<void> {
  startEventStream(res);
  const deltas = [{ role: 'assistant', content: '' }, ...splitText(text).map((content) => ({ content }))];
  for (const delta of deltas) {
    const chunk = chunkOf(completion, [{ index: 0, delta, logprobs: null, finish_reason: null }]);
    if (!(await writeEvent(res, chunk))) return;
  }
  if ('malformed' in how) {
    await write(res, 'data: {"id": "chatcmpl-test", "choices": [\n\n');
    res.end();
  } else {
    res.destroy();
  }
}

/** The non-streamed counterparts: a body that is not JSON, or one that stops short of its content-length. */
async function sendBrokenWhole(res: ServerResponse, text: string, how: { malformed: true } | { cut: true }) {
  const body = `{"id": "chatcmpl-test", "choices": [{"message": {"content": ${JSON.stringify(text)}`;
  if ('malformed' in how) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body) + 64) });
  if (await write(res, body)) res.destroy();
}

function sendWholeCompletion(
  res: ServerResponse,
  completion: Completion,
  text: string | undefined,
  toolCalls: ToolCallReply[],
): void {
  const message = {
    role: 'assistant',
    content: text ?? null,
    refusal: null,
    ...(toolCalls.length > 0 && {
      tool_calls: toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    }),
  };
  sendJson(res, 200, {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: usageOf(completion, text, toolCalls),
  });
}

function chunkOf(completion: Completion, choices: object[]) {
  return {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices,
    // OpenAI sends usage: null on every chunk but the last once usage was asked for.
    ...(completion.includeUsage && { usage: null }),
  };
}

function usageOf(completion: Completion, text: string | undefined, toolCalls: ToolCallReply[]) {
  const completionTokens = estimateTokens((text ?? '') + toolCalls.map((call) => call.name + call.arguments).join(''));
  return {
    prompt_tokens: completion.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: completion.promptTokens + completionTokens,
  };
}

/** A rough count (a token is about four characters of English): stable, and enough for code that sums usage. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Splits into `parts` pieces of near-equal length (by default about 8 characters each, but at least `minParts`),
 * never inside a surrogate pair. Empty text gives one empty piece, so a delta is still sent.
 */
function splitText(text: string, parts?: number, minParts = 1): string[] {
  const chars = Array.from(text);
  const wanted = parts ?? Math.max(minParts, Math.ceil(chars.length / CHARS_PER_DELTA));
  const count = Math.max(1, Math.min(wanted, chars.length));
  const size = chars.length / count;
  return Array.from({ length: count }, (_, i) =>
    chars.slice(Math.round(i * size), Math.round((i + 1) * size)).join(''),
  );
}

function errorShape(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 404) return { type: 'invalid_request_error', code: 'model_not_found' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

function defaultErrorMessage(status: number, model: string): string {
  if (status === 401) return 'Incorrect API key provided.';
  if (status === 404) return `The model \`${model}\` does not exist or you do not have access to it.`;
  if (status === 429) return 'Rate limit reached for requests.';
  if (status >= 500) return 'The server had an error while processing your request.';
  return `Scripted error ${status}.`;
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  shape = errorShape(status),
): void {
  sendJson(res, status, { error: { message, type: shape.type, param: null, code: shape.code } }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function startEventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

function writeEvent(res: ServerResponse, data: object): Promise<boolean> {
  return write(res, `data: ${JSON.stringify(data)}\n\n`);
}

/**
 * Resolves once the bytes reached the socket (so a later destroy cannot drop them), with false when the client
 * has gone, so a stream whose reader gave up stops instead of writing into a closed socket.
 */
function write(res: ServerResponse, text: string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => res.write(text, (error) => resolve(!error && !res.destroyed)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseJson(raw: string): any {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
