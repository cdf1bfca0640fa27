import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelTestServer, type ModelTestServer } from '../support/model-test-server.ts';

const MESSAGES = [{ role: 'user' as const, content: 'How much did I spend on groceries?' }];
const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'search_transactions',
      parameters: { type: 'object', properties: { category: { type: 'string' } } },
    },
  },
];

describe('model test server', () => {
  let server: ModelTestServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startModelTestServer();
    client = new OpenAI({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
  });

  beforeEach(() => server.reset());

  afterAll(async () => {
    await server.close();
  });

  async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  }

  function streamText(messages = MESSAGES) {
    return client.chat.completions.create({ model: 'gpt-test', messages, stream: true });
  }

  it('streams scripted text as several deltas that join to the text', async () => {
    const text = 'You spent 412.30 EUR on groceries in March.';
    server.script({ text });

    const chunks = await collect(await streamText());

    const contents = chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((content) => content);
    expect(contents.length).toBeGreaterThan(1);
    expect(contents.join('')).toBe(text);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-test')).toBe(true);
    expect(server.pending()).toBe(0);
  });

  it('splits text into the scripted number of deltas', async () => {
    server.script({ text: 'one two three', chunks: 3, delayMs: 5 });

    const chunks = await collect(await streamText());

    const contents = chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((content) => content);
    expect(contents).toHaveLength(3);
    expect(contents.join('')).toBe('one two three');
  });

  it('streams a tool call in fragments that reassemble, with usage when asked for', async () => {
    const args = { category: 'groceries', from: '2025-03-01', to: '2025-03-31' };
    server.script({ toolCalls: [{ name: 'search_transactions', arguments: args }] });

    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: MESSAGES,
      tools: TOOLS,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await collect(stream);

    const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(fragments.length).toBeGreaterThan(2);
    expect(fragments.every((fragment) => fragment.index === 0)).toBe(true);
    const id = fragments.find((fragment) => fragment.id)?.id;
    const name = fragments.map((fragment) => fragment.function?.name ?? '').join('');
    const argumentsText = fragments.map((fragment) => fragment.function?.arguments ?? '').join('');
    expect(id).toBe('call_1');
    expect(name).toBe('search_transactions');
    expect(JSON.parse(argumentsText)).toEqual(args);
    const finishReasons = chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter((reason) => reason);
    expect(finishReasons).toEqual(['tool_calls']);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.total_tokens).toBe((last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0));
  });

  it('answers a non-streamed request with a whole completion', async () => {
    server.script({ text: 'Whole answer.' });

    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: MESSAGES });

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Whole answer.' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('answers a non-streamed request with tool calls', async () => {
    server.script({
      toolCalls: [
        { id: 'call_a', name: 'search_transactions', arguments: { category: 'rent' } },
        { name: 'list_accounts', arguments: '{}' },
      ],
    });

    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: MESSAGES, tools: TOOLS });

    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'search_transactions', arguments: '{"category":"rent"}' } },
      { id: 'call_2', type: 'function', function: { name: 'list_accounts', arguments: '{}' } },
    ]);
  });

  it('surfaces a scripted 429 as a RateLimitError with its retry-after header', async () => {
    server.script({ status: 429, headers: { 'retry-after': '7' } });

    const error = await streamText().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((error as RateLimitError).headers.get('retry-after')).toBe('7');
  });

  it('surfaces a scripted 500 as an InternalServerError', async () => {
    server.script({ status: 500, message: 'upstream exploded' });

    await expect(streamText()).rejects.toSatisfy(
      (error) => error instanceof InternalServerError && error.status === 500 && error.message.includes('exploded'),
    );
  });

  it('surfaces a scripted 404 as a missing model', async () => {
    server.script({ status: 404 });

    await expect(streamText()).rejects.toSatisfy(
      (error) =>
        error instanceof NotFoundError && error.code === 'model_not_found' && error.message.includes('gpt-test'),
    );
  });

  it('lets a hanging request run into the client timeout', async () => {
    server.script({ hang: true });

    const started = Date.now();
    await expect(
      client.chat.completions.create({ model: 'gpt-test', messages: MESSAGES }, { timeout: 300 }),
    ).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('makes stream iteration throw on a chunk that is not JSON', async () => {
    server.script({ malformed: true, text: 'so far so good' });
    // The client logs the bad line through its logger before throwing; keep the test output clean.
    const quiet = new OpenAI({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0, logLevel: 'off' });
    const seen: string[] = [];

    const stream = await quiet.chat.completions.create({ model: 'gpt-test', messages: MESSAGES, stream: true });
    await expect(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toBeInstanceOf(SyntaxError);
    expect(seen.join('')).toBe('so far so good');
  });

  it('makes stream iteration throw when the connection is cut', async () => {
    server.script({ cut: true, text: 'half of an answer' });
    const seen: string[] = [];

    const stream = await streamText();

    await expect(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toThrow();
    expect(seen.join('')).toBe('half of an answer');
  });

  it('answers 500 naming the problem when nothing was scripted', async () => {
    await expect(streamText()).rejects.toSatisfy(
      (error) => error instanceof InternalServerError && /no reply was scripted/i.test(error.message),
    );
    expect(server.requests).toHaveLength(1);
  });

  it('records every request with its body, failed ones included', async () => {
    server.script({ toolCalls: [{ name: 'search_transactions', arguments: {} }] }, { status: 500 });

    await client.chat.completions.create({ model: 'gpt-test', messages: MESSAGES, tools: TOOLS });
    await expect(streamText()).rejects.toBeInstanceOf(InternalServerError);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.path).toBe('/v1/chat/completions');
    expect(first?.headers.authorization).toBe('Bearer test');
    expect(first?.body).toMatchObject({ model: 'gpt-test', messages: MESSAGES, tools: TOOLS });
    expect(second?.body).toMatchObject({ stream: true, messages: MESSAGES });
  });

  it('lists the test model and answers unknown paths with 404 in the error shape', async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['test-model']);

    const response = await fetch(`${server.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', code: null } });
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/models', '/v1/embeddings']);
    expect(server.pending()).toBe(0);
  });

  it('closes promptly while a request hangs', async () => {
    const own = await startModelTestServer();
    own.script({ hang: true });
    const hangingClient = new OpenAI({ apiKey: 'test', baseURL: own.baseUrl, maxRetries: 0 });
    const outcome = hangingClient.chat.completions.create({ model: 'gpt-test', messages: MESSAGES });
    await expect.poll(() => own.requests.length).toBe(1);

    const started = Date.now();
    await own.close();

    expect(Date.now() - started).toBeLessThan(500);
    await expect(outcome).rejects.toBeInstanceOf(APIConnectionError);
  });
});
