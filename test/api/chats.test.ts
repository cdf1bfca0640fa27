import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../server/api-keys/api-key.service.ts';
import type { AiProviderConfig } from '../../server/config.ts';
import { User } from '../../server/users/user.entity.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { createTransaction } from '../support/transactions-fixtures.ts';
import { startModelTestServer, type ModelTestServer } from '../support/model-test-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let model: ModelTestServer;
let server: TestServer;
let household: TestHousehold;
let other: TestHousehold;
let noAi: TestHousehold;
let checking: string;
let otherChecking: string;

const provider = (baseUrl: string): AiProviderConfig => ({
  baseUrl,
  apiKey: 'test-key',
  model: 'test-model',
  // 1 s was too short under the suite's parallel load: a 500 KB tool call, streamed, timed out and
  // its reply failed, and the next tests' replies took the scripted answers it had left.
  timeoutSeconds: 5,
  maxRetries: 1,
  contextTokens: 12_000,
  retryAfterMaxSeconds: 30,
  replyTimeoutSeconds: 300,
});

beforeAll(async () => {
  model = await startModelTestServer();
  server = await startTestServer({ ai: provider(model.baseUrl), aiMessagesPerHour: 10_000 });
  household = await createHousehold(server, { currency: 'EUR', aiEnabled: true });
  other = await createHousehold(server, { aiEnabled: true });
  noAi = await createHousehold(server);
  const account = async (key: string, name: string) =>
    (
      await server.api.call('createAccount', {
        key,
        body: { account: { name, account_type: 'depository', currency: 'EUR', balance: 1250.5 } },
      })
    ).body.data.id as string;
  checking = await account(household.writeKey, 'Girokonto');
  otherChecking = await account(other.writeKey, 'Secret Savings');
  for (const [key, account, name, amount] of [
    [household.writeKey, checking, 'Bakery Krause', 4.2],
    [household.writeKey, checking, 'Rent March', 950],
    [other.writeKey, otherChecking, 'Other family private payment', 77.7],
  ] as const) {
    const response = await server.api.call('createTransaction', {
      key,
      body: { transaction: { account_id: account, date: '2024-03-05', amount, name, nature: 'expense' } },
    });
    expect(response.status).toBe(201);
  }
  await server.drainJobs();
});
afterAll(async () => {
  await server?.close();
  await model?.close();
});

const createChat = (body: Record<string, unknown>, key = household.writeKey) =>
  server.api.call('createChat', { key, body });
const getChat = (id: string, key = household.readKey) => server.api.call('getChat', { key, params: { id } });
const send = (chatId: string, content: string, key = household.writeKey) =>
  server.api.call('createChatMessage', { key, params: { chat_id: chatId }, body: { content } });
const retry = (chatId: string, key = household.writeKey) =>
  server.api.call('retryChatMessage', { key, params: { chat_id: chatId } });

/** Starts a chat with a question, runs its reply job, and returns the chat as the API shows it. */
async function askAndAnswer(question: string) {
  const created = await createChat({ message: question });
  expect(created.status).toBe(201);
  await server.drainJobs();
  return (await getChat(created.body.data.id)).body.data;
}

/** The chat-completions requests the model server received since `from`. */
const completions = (from = 0) =>
  model.requests.slice(from).filter((request) => request.path.endsWith('/chat/completions'));

describe('chats: operations', () => {
  it('creates, lists, shows, renames and deletes a chat', async () => {
    const created = await createChat({ title: 'March review' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ title: 'March review', error: null, messages: [], message_count: 0 });
    expect(created.body.data.last_message_at).toBeNull();
    const id = created.body.data.id as string;

    const renamed = await server.api.call('updateChat', {
      key: household.writeKey,
      params: { id },
      body: { title: 'Coffee budget' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.title).toBe('Coffee budget');

    const listed = await server.api.call('listChats', { key: household.readKey, query: { per_page: 100 } });
    expect(listed.status).toBe(200);
    expect(listed.body.data[0]).toMatchObject({ id, title: 'Coffee budget', message_count: 0 });

    expect((await server.api.call('deleteChat', { key: household.writeKey, params: { id } })).status).toBe(204);
    expect((await getChat(id)).status).toBe(404);
  });

  it('lists the chat with the newest activity first, with its message count and last message time', async () => {
    const older = (await createChat({ title: 'Older' })).body.data.id as string;
    const newer = (await createChat({ title: 'Newer' })).body.data.id as string;
    model.script({ text: 'Noted.' });
    expect((await send(older, 'Hello')).status).toBe(201);
    await server.drainJobs();
    const listed = await server.api.call('listChats', { key: household.readKey, query: { per_page: 100 } });
    const ids = listed.body.data.map((chat: { id: string }) => chat.id);
    expect(ids.indexOf(older)).toBeLessThan(ids.indexOf(newer));
    const olderChat = listed.body.data.find((chat: { id: string }) => chat.id === older);
    expect(olderChat.message_count).toBe(2);
    expect(Date.parse(olderChat.last_message_at)).toBeGreaterThan(Date.parse(olderChat.created_at) - 1);
  });

  it('names a chat started without a title after its first message, cut at a word', async () => {
    model.script({ text: 'Sure.' }, { text: 'Fine.' });
    const short = await createChat({ message: '  How much did I   spend on rent? ' });
    expect(short.body.data.title).toBe('How much did I spend on rent?');
    const question = `Please compare ${'all my grocery spending '.repeat(6)}with last year`;
    const long = await createChat({ message: question });
    expect(long.body.data.title.length).toBeLessThanOrEqual(81);
    expect(long.body.data.title.endsWith('…')).toBe(true);
    expect(question.startsWith(long.body.data.title.slice(0, -1))).toBe(true);
    await server.drainJobs();
  });

  it('refuses a chat with neither title nor message, and blank texts, with 422 and nothing written', async () => {
    const before = await server.query<{ n: string }>('select count(*) as n from chats');
    for (const body of [{}, { title: '' }, { title: '   ' }, { message: ' \n ' }, { model: 'test-model' }]) {
      const response = await createChat(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error).toBe('validation_failed');
    }
    const chat = (await createChat({ title: 'Blank message' })).body.data.id as string;
    expect((await send(chat, '')).status).toBe(422);
    expect((await send(chat, '   ')).status).toBe(422);
    const after = await server.query<{ n: string }>('select count(*) as n from chats');
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n) + 1);
    expect((await getChat(chat)).body.data.messages).toEqual([]);
  });

  it('keeps chats to their user: another family gets 404 on every chat operation', async () => {
    const chat = (await createChat({ title: 'Private' })).body.data.id as string;
    const key = other.writeKey;
    expect((await getChat(chat, key)).status).toBe(404);
    expect((await server.api.call('updateChat', { key, params: { id: chat }, body: { title: 'x' } })).status).toBe(404);
    expect((await send(chat, 'hi', key)).status).toBe(404);
    expect((await retry(chat, key)).status).toBe(404);
    expect((await server.api.call('deleteChat', { key, params: { id: chat } })).status).toBe(404);
    const listed = await server.api.call('listChats', { key: other.readKey, query: { per_page: 100 } });
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(chat);
    expect((await getChat(chat)).status).toBe(200);
  });

  it("keeps a chat from another member of the same family: 404, and the member's list leaves it out", async () => {
    const chat = (await createChat({ title: 'Mine alone' })).body.data.id as string;
    // A second member of the household (there is no API for members yet): password-less, AI on.
    const [member] = await server.query<{ id: string }>(
      `insert into users (id, family_id, email, ai_enabled) values (gen_random_uuid(), $1, $2, true) returning id`,
      [household.familyId, `member-${Date.now()}@example.test`],
    );
    const em = server.em();
    const { key } = await issueApiKey(em, { user: await em.findOneOrFail(User, member!.id), scope: 'read_write' });
    expect((await getChat(chat, key)).status).toBe(404);
    expect((await send(chat, 'hello', key)).status).toBe(404);
    const listed = await server.api.call('listChats', { key, query: { per_page: 100 } });
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(chat);
  });

  it('lets a read key list and show but not write', async () => {
    const chat = (await createChat({ title: 'Readable' })).body.data.id as string;
    expect((await server.api.call('listChats', { key: household.readKey })).status).toBe(200);
    expect((await getChat(chat, household.readKey)).status).toBe(200);
    const refused = await createChat({ title: 'No' }, household.readKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
  });

  it('answers a user without AI with 403 feature_disabled, before the scope', async () => {
    for (const response of [
      await server.api.call('listChats', { key: noAi.readKey }),
      await createChat({ title: 'No' }, noAi.readKey),
      await createChat({ title: 'No' }, noAi.writeKey),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({
        error: 'feature_disabled',
        message: 'AI features are disabled for this user',
      });
    }
  });

  it('answers every chat operation with 403 feature_disabled when no provider is configured', async () => {
    const bare = await startTestServer();
    try {
      const user = await createHousehold(bare, { aiEnabled: true });
      const response = await bare.api.call('listChats', { key: user.readKey });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({
        error: 'feature_disabled',
        message: 'No AI provider is configured on this server',
      });
    } finally {
      await bare.close();
    }
  });
});

describe('chats: messages a page at a time, as the reference shows them (issue 28)', () => {
  it('pages the messages oldest first, 50 by default, with the meta of every collection', async () => {
    const chat = (await createChat({ title: 'Long talk' })).body.data.id as string;
    // 120 stored messages; posting them would run 120 replies for nothing.
    await server.query(
      `insert into chat_messages (id, chat_id, kind, content, status)
       select gen_random_uuid(), $1, case when g % 2 = 1 then 'user_message' else 'assistant_message' end,
         'message ' || g, 'complete'
       from generate_series(1, 120) g order by g`,
      [chat],
    );
    const page = async (query: Record<string, number>) => {
      const response = await server.api.call('getChat', { key: household.readKey, params: { id: chat }, query });
      expect(response.status, JSON.stringify(query)).toBe(200);
      return response.body as { data: { messages: { content: string }[] }; meta: Record<string, unknown> };
    };
    const first = await page({});
    expect(first.data.messages.map((message) => message.content)).toEqual(
      Array.from({ length: 50 }, (_, index) => `message ${index + 1}`),
    );
    expect(first.meta).toEqual({
      current_page: 1,
      per_page: 50,
      total_count: 120,
      total_count_exact: true,
      total_pages: 3,
      next_page: 2,
      prev_page: null,
    });
    const last = await page({ page: 3 });
    expect(last.data.messages.map((message) => message.content)).toEqual(
      Array.from({ length: 20 }, (_, index) => `message ${index + 101}`),
    );
    expect(last.meta).toMatchObject({ current_page: 3, next_page: null, prev_page: 2 });
    const wide = await page({ page: 2, per_page: 100 });
    expect([wide.data.messages.length, wide.data.messages[0]!.content]).toEqual([20, 'message 101']);
    expect((await page({ page: 9 })).data.messages).toEqual([]);
    for (const query of [{ per_page: 101 }, { per_page: 0 }, { page: 0 }]) {
      const refused = await server.api.call('getChat', { key: household.readKey, params: { id: chat }, query });
      expect(refused.status, JSON.stringify(query)).toBe(422);
    }
  });

  it('dates every message (created and last changed) and every tool call', async () => {
    const chat = (await createChat({ title: 'Dated' })).body.data.id as string;
    // Stored as a reply job leaves them, without running one (the model's part is tested below).
    const [reply] = await server.query<{ id: string }>(
      `insert into chat_messages (id, chat_id, kind, content, status, model, created_at, updated_at)
       values (gen_random_uuid(), $1, 'assistant_message', 'You have one account.', 'complete', 'test-model',
         '2024-03-28T18:30:00.123Z', '2024-03-28T18:30:04.567Z')
       returning id`,
      [chat],
    );
    await server.query(
      `insert into chat_tool_calls (id, message_id, provider_id, function_name, function_arguments, function_result,
         created_at)
       values (gen_random_uuid(), $1, 'call_1', 'get_accounts', '{}', '{"accounts": []}', '2024-03-28T18:30:02.5Z')`,
      [reply!.id],
    );
    const shown = await getChat(chat);
    expect(shown.status).toBe(200);
    const [message] = shown.body.data.messages;
    expect([message.created_at, message.updated_at]).toEqual(['2024-03-28T18:30:00.123Z', '2024-03-28T18:30:04.567Z']);
    expect(message.tool_calls).toMatchObject([{ provider_id: 'call_1', created_at: '2024-03-28T18:30:02.500Z' }]);
  });
});

describe('chats: the assistant', () => {
  it('shows a stored tool result digit for digit, a figure past 2^53 included', async () => {
    const rich = await createHousehold(server, { aiEnabled: true });
    const created = await server.api.call('createAccount', {
      key: rich.writeKey,
      body: { account: { name: 'Vault', account_type: 'depository', balance: 0 } },
    });
    // Income: 9 x 999999999999999 cents + 999999999999998 = 9999999999999989, odd, so no double holds it.
    for (const amount of [...Array(9).fill('-9999999999999.99'), '-9999999999999.98']) {
      const transaction = { account_id: created.body.data.id, date: '2024-05-02', amount, name: 'In' };
      await createTransaction(server, rich.writeKey, transaction);
    }
    await server.drainJobs();
    model.script({ toolCalls: [{ id: 'call_sheet', name: 'get_balance_sheet', arguments: {} }] }, { text: 'Plenty.' });
    const chat = await createChat({ message: 'What am I worth?' }, rich.writeKey);
    await server.drainJobs();
    const shown = await getChat(chat.body.data.id, rich.readKey);
    expect(shown.body.data.messages[1].tool_calls).toMatchObject([{ function_name: 'get_balance_sheet' }]);
    expect(shown.text).toMatch(/"net_worth_cents": ?9999999999999989,/);
  });

  it('keeps a tool call of 500 KB arguments as a note of their size, so the chat stays small', async () => {
    model.script(
      { toolCalls: [{ id: 'call_huge', name: 'get_transactions', arguments: { search: 'x'.repeat(500_000) } }] },
      { text: 'Nothing matched.' },
    );
    const created = await createChat({ message: 'Find my huge search' });
    await server.drainJobs();
    const shown = await getChat(created.body.data.id);
    expect(JSON.stringify(shown.body).length).toBeLessThan(20_000);
    const [call] = shown.body.data.messages[1].tool_calls;
    expect(call.function_arguments).toEqual({
      omitted: expect.stringMatching(/^The arguments took \d+ bytes; at most 65536 are kept\.$/),
      bytes: expect.any(Number),
    });
    expect(call.function_arguments.bytes).toBeGreaterThan(500_000);
  });

  it('answers a question with one tool call, stored with its result, and the system prompt states the facts', async () => {
    const from = model.requests.length;
    model.script(
      { toolCalls: [{ id: 'call_accounts', name: 'get_accounts', arguments: {} }] },
      { text: 'Your Girokonto holds 1,250.50 EUR.' },
    );
    const chat = await askAndAnswer('What is in my accounts?');
    const [question, reply] = chat.messages;
    expect(question).toMatchObject({ type: 'user_message', role: 'user', status: 'complete', tool_calls: [] });
    expect(reply).toMatchObject({
      type: 'assistant_message',
      role: 'assistant',
      status: 'complete',
      model: 'test-model',
      content: 'Your Girokonto holds 1,250.50 EUR.',
    });
    expect(reply.tool_calls).toHaveLength(1);
    const call = reply.tool_calls[0];
    expect(call).toMatchObject({ type: 'function', provider_id: 'call_accounts', function_name: 'get_accounts' });
    expect(JSON.stringify(call.function_result)).toContain('Girokonto');
    expect(JSON.stringify(call.function_result)).not.toContain('Secret Savings');

    const [first, second] = completions(from);
    expect(first!.body.stream).toBe(true);
    expect(first!.body.model).toBe('test-model');
    const system = first!.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('EUR');
    expect(system.content).toContain(new Date().toISOString().slice(0, 10));
    expect(first!.body.messages.at(-1)).toEqual({ role: 'user', content: 'What is in my accounts?' });
    expect(first!.body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort()).toEqual([
      'get_accounts',
      'get_balance_sheet',
      'get_holdings',
      'get_spending_by_category',
      'get_transactions',
    ]);
    expect(first!.headers.authorization).toBe('Bearer test-key');
    // The tool's result goes back to the model as the answer to its call.
    const toolMessage = second!.body.messages.find((message: { role: string }) => message.role === 'tool');
    expect(toolMessage.tool_call_id).toBe('call_accounts');
    expect(JSON.parse(toolMessage.content)).toEqual(call.function_result);
  });

  it('runs two tool rounds in order', async () => {
    model.script(
      { toolCalls: [{ id: 'call_1', name: 'get_accounts', arguments: {} }] },
      { toolCalls: [{ id: 'call_2', name: 'get_transactions', arguments: { search: 'bakery' } }] },
      { text: 'One bakery purchase of 4.20 EUR.' },
    );
    const chat = await askAndAnswer('Bakery?');
    const reply = chat.messages[1];
    expect(reply.status).toBe('complete');
    expect(reply.tool_calls.map((call: { provider_id: string }) => call.provider_id)).toEqual(['call_1', 'call_2']);
    const found = JSON.stringify(reply.tool_calls[1].function_result);
    expect(found).toContain('Bakery Krause');
    expect(found).not.toContain('Rent March');
  });

  it('gives a bad tool argument back to the model as a tool error, and goes on', async () => {
    model.script(
      { toolCalls: [{ id: 'bad', name: 'get_transactions', arguments: { page_size: 1000, colour: 'red' } }] },
      { toolCalls: [{ id: 'junk', name: 'get_transactions', arguments: '{not json' }] },
      { toolCalls: [{ id: 'nope', name: 'delete_everything', arguments: {} }] },
      { text: 'Sorry, I could not read that.' },
    );
    const chat = await askAndAnswer('Everything please');
    const reply = chat.messages[1];
    expect(reply.status).toBe('complete');
    const [bad, junk, nope] = reply.tool_calls;
    expect(bad.function_result.error).toBe('invalid_arguments');
    expect(junk.function_arguments).toEqual({ raw: '{not json' });
    expect(junk.function_result.error).toBe('invalid_arguments');
    expect(nope.function_result.error).toBe('unknown_tool');
  });

  it("never returns another family's rows, even for their names and ids", async () => {
    model.script(
      {
        toolCalls: [
          { id: 'f1', name: 'get_transactions', arguments: { accounts: ['Secret Savings'], search: 'private' } },
          { id: 'f2', name: 'get_transactions', arguments: { search: 'Other family' } },
          { id: 'f3', name: 'get_balance_sheet', arguments: {} },
        ],
      },
      { text: 'Nothing found.' },
    );
    const chat = await askAndAnswer('Show the other family');
    const results = JSON.stringify(
      chat.messages[1].tool_calls.map((call: { function_result: unknown }) => call.function_result),
    );
    expect(results).not.toContain('Other family private payment');
    expect(results).not.toContain(otherChecking);
    // The foreign account name comes back only as a name that matched nothing.
    const [byAccount] = chat.messages[1].tool_calls;
    expect(byAccount.function_result.transactions).toEqual([]);
    expect(JSON.stringify(byAccount.function_result.unmatched_names)).toContain('Secret Savings');
  });

  it('runs at most 10 tool calls per turn and answers the rest with an error', async () => {
    const from = model.requests.length;
    const calls = Array.from({ length: 12 }, (_, i) => ({ id: `many_${i}`, name: 'get_accounts', arguments: {} }));
    model.script({ toolCalls: calls }, { text: 'Done.' });
    const chat = await askAndAnswer('Many calls');
    expect(chat.messages[1].tool_calls).toHaveLength(10);
    const answers = completions(from)[1]!.body.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(answers.map((answer: { tool_call_id: string }) => answer.tool_call_id)).toEqual(
      calls.map((call) => call.id),
    );
    expect(JSON.parse(answers[11].content).error).toBe('too_many_calls');
  });

  it('streams: a client polling the chat sees the reply grow before it is complete', async () => {
    const text = 'Streaming reply that arrives in several pieces over time.';
    model.script({ text, chunks: 12, delayMs: 120 });
    const chat = (await createChat({ message: 'Stream please' })).body.data.id as string;
    const draining = server.drainJobs();
    let partial: { content: string; status: string } | undefined;
    for (let tries = 0; tries < 200 && !partial; tries++) {
      const reply = (await getChat(chat)).body.data.messages[1];
      if (reply.status === 'pending' && reply.content.length > 0) partial = reply;
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await draining;
    expect(partial, 'a pending reply with some text was seen').toBeDefined();
    expect(partial!.content.length).toBeLessThan(text.length);
    expect(text.startsWith(partial!.content)).toBe(true);
    expect((await getChat(chat)).body.data.messages[1]).toMatchObject({ status: 'complete', content: text });
  });

  it('asks the model a message names, and records it on both messages', async () => {
    const from = model.requests.length;
    model.script({ text: 'From the other model.' });
    const created = await createChat({ message: 'Which model?', model: 'llama3.1:8b' });
    expect(created.body.data.messages.map((m: { model: string | null }) => m.model)).toEqual([
      'llama3.1:8b',
      'llama3.1:8b',
    ]);
    await server.drainJobs();
    expect(completions(from)[0]!.body.model).toBe('llama3.1:8b');
    expect((await getChat(created.body.data.id)).body.data.messages[1]).toMatchObject({
      model: 'llama3.1:8b',
      content: 'From the other model.',
    });
  });

  it('answers two quick messages in order, the second with the first exchange in its history', async () => {
    const chat = (await createChat({ title: 'Quick' })).body.data.id as string;
    const from = model.requests.length;
    model.script({ text: 'First answer.' }, { text: 'Second answer.' });
    expect((await send(chat, 'First question')).status).toBe(201);
    expect((await send(chat, 'Second question')).status).toBe(201);
    await server.drainJobs();
    const messages = (await getChat(chat)).body.data.messages;
    expect(messages.map((m: { content: string }) => m.content)).toEqual([
      'First question',
      'First answer.',
      'Second question',
      'Second answer.',
    ]);
    const second = completions(from)[1]!.body.messages.slice(1);
    expect(second).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
    ]);
  });

  it('retries a passing provider failure by itself', async () => {
    model.script({ status: 500, message: 'overloaded' }, { text: 'Answer after a retry.' });
    const chat = await askAndAnswer('Try hard');
    expect(chat.error).toBeNull();
    expect(chat.messages[1]).toMatchObject({ status: 'complete', content: 'Answer after a retry.' });
  });

  it('fails a reply with a readable sentence, and a retry writes it again', async () => {
    model.script({ status: 500 }, { status: 503 });
    const chat = await askAndAnswer('Will fail');
    expect(chat.error).toBe('The AI provider is temporarily unavailable right now. Please try again in a few minutes.');
    expect(chat.messages[1].status).toBe('failed');

    model.script({ text: 'Now it works.' });
    const retried = await retry(chat.id);
    expect(retried.status).toBe(202);
    expect(retried.body.data.message_id).toBe(chat.messages[1].id);
    const pending = (await getChat(chat.id)).body.data;
    expect(pending.error).toBeNull();
    expect(pending.messages[1]).toMatchObject({ status: 'pending', content: '', tool_calls: [] });
    await server.drainJobs();
    const done = (await getChat(chat.id)).body.data;
    expect(done.messages).toHaveLength(2);
    expect(done.messages[1]).toMatchObject({ id: chat.messages[1].id, status: 'complete', content: 'Now it works.' });
  });

  it('replaces a completed reply and its tool calls on retry', async () => {
    model.script({ toolCalls: [{ name: 'get_accounts', arguments: {} }] }, { text: 'First take.' });
    const chat = await askAndAnswer('Accounts?');
    expect(chat.messages[1].tool_calls).toHaveLength(1);
    model.script({ text: 'Second take.' });
    expect((await retry(chat.id)).status).toBe(202);
    await server.drainJobs();
    const reply = (await getChat(chat.id)).body.data.messages[1];
    expect(reply).toMatchObject({ status: 'complete', content: 'Second take.', tool_calls: [] });
  });

  it.each([
    [{ status: 429 }, 'The AI provider is rate limited right now. Please try again in a few minutes.'],
    [{ status: 401 }, 'The AI provider is not configured correctly. Please contact your administrator.'],
    [{ status: 404 }, "The AI provider does not offer the model 'test-model'. Pick another model and try again."],
    [{ malformed: true as const, text: 'Half an ans' }, 'Failed to generate a response. Please try again.'],
    [{ cut: true as const, text: 'Half an ans' }, 'Failed to generate a response. Please try again.'],
  ])('ends a reply failed on %j with a sentence', async (failure, sentence) => {
    // 429 and 500-like failures are retried once by the client: script the failure twice.
    model.script(failure, failure);
    const chat = await askAndAnswer('Fail please');
    expect(chat.error).toBe(sentence);
    expect(chat.messages[1].status).toBe('failed');
    model.reset();
  });

  it('gives up on a provider that does not answer', async () => {
    model.script({ hang: true }, { hang: true });
    const chat = await askAndAnswer('Hello?');
    expect(chat.error).toBe('The AI provider is temporarily unavailable right now. Please try again in a few minutes.');
    expect(chat.messages[1].status).toBe('failed');
    model.reset();
  });

  it('stops a reply whose chat is deleted while it is written', async () => {
    model.script({ text: 'This reply will never be finished because the chat goes away.', chunks: 20, delayMs: 100 });
    const chat = (await createChat({ message: 'Delete me' })).body.data.id as string;
    const draining = server.drainJobs();
    for (let tries = 0; tries < 200; tries++) {
      const reply = (await getChat(chat)).body.data.messages[1];
      if (reply.content) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await server.api.call('deleteChat', { key: household.writeKey, params: { id: chat } })).status).toBe(204);
    await draining;
    expect(await server.query('select id from chat_messages where chat_id = $1', [chat])).toEqual([]);
    expect((await getChat(chat)).status).toBe(404);
  });

  it('refuses a retry without an assistant message, or while the reply is pending, with 422', async () => {
    const empty = (await createChat({ title: 'Empty' })).body.data.id as string;
    const none = await retry(empty);
    expect(none.status).toBe(422);
    expect(none.body.message).toBe('No assistant message to retry');
    const busy = (await createChat({ message: 'Pending' })).body.data.id as string;
    const pending = await retry(busy);
    expect(pending.status).toBe(422);
    model.script({ text: 'ok' });
    await server.drainJobs();
  });
});

describe('chats: concurrency and limits', () => {
  it('takes 20 concurrent messages on one chat: every one answered, counts and order consistent', async () => {
    const chat = (await createChat({ title: 'Busy' })).body.data.id as string;
    model.script(...Array.from({ length: 20 }, (_, i) => ({ text: `Answer ${i}` })));
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => send(chat, `Question ${i}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    await server.drainJobs();
    const detail = (await getChat(chat)).body.data;
    expect(detail.message_count).toBe(40);
    expect(detail.messages).toHaveLength(40);
    // Each question is followed by its own reply, all complete.
    for (let i = 0; i < 40; i += 2) {
      expect(detail.messages[i].type).toBe('user_message');
      expect(detail.messages[i + 1]).toMatchObject({ type: 'assistant_message', status: 'complete' });
    }
    expect(model.pending()).toBe(0);
  });

  it('takes 20 concurrent new chats, renames and deletes: no 5xx, counts consistent, one delete wins', async () => {
    model.script(...Array.from({ length: 20 }, () => ({ text: 'Hi.' })));
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => createChat({ message: `Start ${i}` })));
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    await server.drainJobs();
    const ids = created.map((r) => r.body.data.id as string);
    const counts = await server.query<{ message_count: number; n: string }>(
      `select c.message_count, (select count(*) from chat_messages m where m.chat_id = c.id) as n
       from chats c where c.id = any($1::uuid[])`,
      [ids],
    );
    expect(counts).toHaveLength(20);
    for (const row of counts) expect([row.message_count, Number(row.n)]).toEqual([2, 2]);

    const target = ids[0]!;
    const titles = Array.from({ length: 20 }, (_, i) => `Title ${i}`);
    const renamed = await Promise.all(
      titles.map((title) =>
        server.api.call('updateChat', { key: household.writeKey, params: { id: target }, body: { title } }),
      ),
    );
    expect(renamed.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(titles).toContain((await getChat(target)).body.data.title);

    const deleted = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.api.call('deleteChat', { key: household.writeKey, params: { id: target } }),
      ),
    );
    expect(deleted.filter((r) => r.status === 204)).toHaveLength(1);
    expect(deleted.filter((r) => r.status === 404)).toHaveLength(19);
    expect(await server.query('select id from chat_messages where chat_id = $1', [target])).toEqual([]);
  });

  it('accepts exactly one of 20 concurrent retries', async () => {
    model.script({ text: 'Original' });
    const chat = await askAndAnswer('Retry storm');
    model.script({ text: 'Retried' });
    const responses = await Promise.all(Array.from({ length: 20 }, () => retry(chat.id)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(19);
    await server.drainJobs();
    expect((await getChat(chat.id)).body.data.messages[1]).toMatchObject({ status: 'complete', content: 'Retried' });
  });

  it('holds the hourly message limit exactly under 25 concurrent messages: 429 beyond it, nothing written', async () => {
    const limited = await startTestServer({ ai: provider(model.baseUrl), aiMessagesPerHour: 5 });
    try {
      const user = await createHousehold(limited, { aiEnabled: true });
      const chat = (await limited.api.call('createChat', { key: user.writeKey, body: { title: 'Limited' } })).body.data
        .id as string;
      const responses = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          limited.api.call('createChatMessage', {
            key: user.writeKey,
            params: { chat_id: chat },
            body: { content: `Message ${i}` },
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20);
      const refused = responses.find((r) => r.status === 429)!;
      expect(refused.body.error).toBe('rate_limit_exceeded');
      expect(refused.body.message).toMatch(
        /^Message limit reached \(5 messages per hour\)\. Try again in \d+ seconds\.$/,
      );
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const written = await limited.query<{ n: string }>('select count(*) as n from chat_messages where chat_id = $1', [
        chat,
      ]);
      expect(Number(written[0]!.n)).toBe(10);
      // Retries count too: with every reply written, a retry is refused for the limit alone.
      model.script(...Array.from({ length: 5 }, () => ({ text: 'ok' })));
      await limited.drainJobs();
      const retried = await limited.api.call('retryChatMessage', { key: user.writeKey, params: { chat_id: chat } });
      expect(retried.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
