/**
 * How long a model provider may hold an assistant reply, and with it a worker: a Retry-After is
 * waited only up to AI_RETRY_AFTER_MAX_SECONDS, a reply ends at AI_REPLY_TIMEOUT_SECONDS, replies
 * run on a runner of their own, and a stopping worker ends their waits at once.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import type { AiProviderConfig } from '../../server/config.ts';
import { startWorker, type BackgroundWorker } from '../../server/jobs/worker.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startModelTestServer, type ModelTestServer } from '../support/model-test-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { until } from '../support/worker-process.ts';

let model: ModelTestServer;
let server: TestServer;
let household: TestHousehold;

const provider = (baseUrl: string, settings: Partial<AiProviderConfig> = {}): AiProviderConfig => ({
  baseUrl,
  apiKey: 'test-key',
  model: 'test-model',
  // Well above the trickle's 500 ms, so only the reply's deadline (2 s) can end it.
  timeoutSeconds: 10,
  maxRetries: 1,
  contextTokens: 12_000,
  retryAfterMaxSeconds: 30,
  replyTimeoutSeconds: 2,
  ...settings,
});

beforeAll(async () => {
  model = await startModelTestServer();
  server = await startTestServer({ ai: provider(model.baseUrl), aiMessagesPerHour: 10_000 });
  household = await createHousehold(server, { aiEnabled: true });
});
afterAll(async () => {
  await server?.close();
  await model?.close();
});

const startChat = async (message: string) => {
  const created = await server.api.call('createChat', { key: household.writeKey, body: { message } });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
};
const getChat = async (id: string) =>
  (await server.api.call('getChat', { key: household.readKey, params: { id } })).body.data;
const completions = () => model.requests.filter((request) => request.path.endsWith('/chat/completions'));
const pendingReplies = async (chats: string[]) =>
  Number(
    (
      await server.query<{ n: string }>(
        `select count(*) as n from chat_messages where chat_id = any($1::uuid[]) and status = 'pending'`,
        [chats],
      )
    )[0]!.n,
  );
/**
 * A worker of the test's own, stopped once (by the test, or when the test ends however it ends: a
 * test that times out leaves its awaits behind, and its worker would take the next test's jobs).
 * `step` names what the test last began to wait for, which a failure reports (a timeout says no more).
 */
async function ownWorker(options: Parameters<typeof startWorker>[0]) {
  const worker: BackgroundWorker = await startWorker(options);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= worker.stop());
  const state = { step: 'started', stop };
  onTestFinished(() => stop());
  onTestFailed(() => console.error(`the last wait begun: ${state.step}`));
  return state;
}

/** Runs due jobs until every reply of `chats` is written (a job a stopped worker gave back waits a few seconds). */
const writeAll = (chats: string[]) =>
  until(
    async () => {
      await server.drainJobs();
      return (await pendingReplies(chats)) === 0;
    },
    30_000,
    'the replies to be written',
  );

describe('assistant: what a provider may ask for', () => {
  it('fails a reply at once when the provider asks to wait longer than the cap, naming its time', async () => {
    model.reset();
    model.script({ status: 429, headers: { 'retry-after': '3600' } }, { text: 'Too late.' });
    const before = Date.now();
    const chat = await startChat('Rate limited?');
    await server.drainJobs();
    const after = Date.now();
    const shown = await getChat(chat);
    expect(shown.messages[1].status).toBe('failed');
    const [, retryAt] =
      /^The AI provider is rate limited until (\S+)\. Please try again after that time\.$/.exec(shown.error) ?? [];
    expect(retryAt, shown.error).toBeDefined();
    expect(Date.parse(retryAt!)).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(Date.parse(retryAt!)).toBeLessThanOrEqual(after + 3_601_000);
    // No second request: the reply did not wait.
    expect(completions()).toHaveLength(1);
  });

  it('names the time of a Retry-After given as a date, and says unavailable for a 503', async () => {
    model.reset();
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 2 * 3_600_000);
    model.script({ status: 503, headers: { 'retry-after': at.toUTCString() } }, { text: 'Too late.' });
    const chat = await startChat('Down?');
    await server.drainJobs();
    expect((await getChat(chat)).error).toBe(
      `The AI provider is unavailable until ${at.toISOString().replace('.000Z', 'Z')}. Please try again after that time.`,
    );
    expect(completions()).toHaveLength(1);
  });

  it('waits a Retry-After within the cap, then writes the reply', async () => {
    model.reset();
    model.script({ status: 429, headers: { 'retry-after': '1' } }, { text: 'After the wait.' });
    const chat = await startChat('Patience?');
    await server.drainJobs();
    const shown = await getChat(chat);
    expect(shown.error).toBeNull();
    expect(shown.messages[1]).toMatchObject({ status: 'complete', content: 'After the wait.' });
    const [first, second] = completions();
    // The provider's second for the wait, not the client's own half-second backoff.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('cuts a trickling reply at AI_REPLY_TIMEOUT_SECONDS, keeping the text so far', async () => {
    model.reset();
    // One word every 500 ms for 30 s: never silent for the 1 s idle timeout.
    const text = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    model.script({ text, chunks: 60, delayMs: 500 });
    const chat = await startChat('Take your time');
    await server.drainJobs();
    const shown = await getChat(chat);
    expect(shown.error).toBe('The reply took longer than 2 seconds and was stopped there. Please try again.');
    const reply = shown.messages[1];
    expect(reply.status).toBe('failed');
    expect(reply.content.length).toBeGreaterThan(0);
    expect(reply.content.length).toBeLessThan(text.length);
    expect(text.startsWith(reply.content)).toBe(true);
  });
});

describe('assistant: replies on a runner of their own', () => {
  it('runs an account sync while four slow replies are in flight, and stops them at once', async () => {
    model.reset();
    // Each request hangs: the provider neither answers nor goes away (timeouts of ten minutes).
    model.script({ hang: true }, { hang: true }, { hang: true }, { hang: true });
    const slow = provider(model.baseUrl, { timeoutSeconds: 600, replyTimeoutSeconds: 600 });
    const chats = [];
    for (let i = 0; i < 4; i++) chats.push(await startChat(`Slow question ${i}`));
    const worker = await ownWorker({
      connectionString: server.databaseUrl,
      concurrency: 4,
      aiConcurrency: 2,
      pollIntervalMs: 100,
      ai: slow,
    });
    try {
      worker.step = 'two replies to reach the provider';
      await until(async () => completions().length === 2, 20_000, worker.step);
      worker.step = 'an account and a transaction to be created';
      const account = await server.api.call('createAccount', {
        key: household.writeKey,
        body: { account: { name: 'Checking', account_type: 'depository', balance: 100 } },
      });
      const id = account.body.data.id as string;
      await server.api.call('createTransaction', {
        key: household.writeKey,
        body: { transaction: { account_id: id, amount: 40, date: '2024-01-02', name: 'Groceries', nature: 'expense' } },
      });
      const balance = async () =>
        (await server.api.call('getAccount', { key: household.readKey, params: { id } })).body.data.balance_cents;
      worker.step = 'the account sync beside the replies';
      await until(async () => (await balance()) === 6000, 20_000, worker.step);
      expect(await pendingReplies(chats)).toBe(4);
      // AI_WORKER_CONCURRENCY: two replies at a time, whatever the main runner's concurrency.
      expect(completions()).toHaveLength(2);
    } finally {
      worker.step = 'the worker to stop';
      await worker.stop();
    }
    // Stopped mid-request, the replies are still pending, none is left locked, and the next run writes them.
    expect(await pendingReplies(chats)).toBe(4);
    expect(await server.query('select id from graphile_worker.jobs where locked_at is not null')).toEqual([]);
    model.reset();
    model.script(...chats.map(() => ({ text: 'Answered after all.' })));
    worker.step = 'the replies to be written';
    await writeAll(chats);
    for (const chat of chats) {
      expect((await getChat(chat)).messages[1]).toMatchObject({ status: 'complete', content: 'Answered after all.' });
    }
  }, 90_000);

  it("stops during a provider's Retry-After wait without waiting it out; the reply is written later", async () => {
    model.reset();
    model.script({ status: 429, headers: { 'retry-after': '300' } }, { text: 'Written after the restart.' });
    const patient = provider(model.baseUrl, { retryAfterMaxSeconds: 600, replyTimeoutSeconds: 600 });
    const chat = await startChat('Wait for it');
    const worker = await ownWorker({
      connectionString: server.databaseUrl,
      concurrency: 1,
      pollIntervalMs: 100,
      ai: patient,
    });
    try {
      worker.step = 'the reply to reach the provider';
      await until(async () => completions().length === 1, 20_000, worker.step);
    } finally {
      // Waiting out the provider's 300 s would outlast this test's timeout.
      worker.step = 'the worker to stop';
      await worker.stop();
    }
    expect(completions()).toHaveLength(1);
    expect((await getChat(chat)).messages[1]).toMatchObject({ status: 'pending', content: '' });
    const [job] = await server.query<{ attempts: number; locked_at: Date | null; last_error: string }>(
      `select attempts, locked_at, last_error from graphile_worker.jobs where task_identifier = 'assistant_reply'`,
    );
    expect(job).toMatchObject({ attempts: 1, locked_at: null });
    expect(job!.last_error).toContain('the worker is stopping');

    await writeAll([chat]);
    expect((await getChat(chat)).messages[1]).toMatchObject({
      status: 'complete',
      content: 'Written after the restart.',
    });
  }, 60_000);
});
