/**
 * `npm run bench:assistant`: what the assistant costs beside the model itself, on the
 * 100,000-transaction bench household. (1) Each tool's query time over the family's data, with
 * the arguments a model would send. (2) The job's overhead per reply: a real worker writes 50
 * replies, one tool round and an answer each, against a loopback OpenAI-compatible server that
 * answers at once; the model's own round trips, measured on their own, are taken out. (3) How
 * long `worker.stop()` takes with replies in flight against a slow provider: one that answers 429
 * with a Retry-After under the cap, one that trickles a token every 500 ms, one that never answers.
 * Writes bench/results/assistant.json and prints a Markdown table. See bench/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import pg from 'pg';
import { runTool } from '../server/assistant/tools/tool-runner.ts';
import { createChat } from '../server/assistant/chat.service.ts';
import type { AiProviderConfig } from '../server/config.ts';
import type { ScriptedReply } from '../test/support/model-test-server.ts';
import { openOrm } from '../server/db/orm.ts';
import { plannedPerCall } from '../server/core/sql.ts';
import { startWorker } from '../server/jobs/worker.ts';
import { startModelTestServer, type ModelTestServer } from '../test/support/model-test-server.ts';
import { machineInfo } from './machine.ts';
import { log, prepare } from './setup.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = process.env.BENCH_ASSISTANT_RESULTS ?? path.join(ROOT, 'bench', 'results', 'assistant.json');
const RUNS = 30;
const REPLIES = 50;
/** Stops measured per kind of slow provider. */
const STOPS = 5;
const round = (value: number) => Math.round(value * 10) / 10;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** Calls a model would make, with the arguments it would send. */
const TOOL_CALLS: [label: string, name: string, args: Record<string, unknown>][] = [
  ['get_accounts', 'get_accounts', {}],
  ['get_balance_sheet', 'get_balance_sheet', {}],
  ['get_holdings', 'get_holdings', {}],
  ['get_transactions: newest page', 'get_transactions', {}],
  [
    'get_transactions: last month, one category',
    'get_transactions',
    { start_date: daysAgo(30), end_date: daysAgo(0), categories: ['Groceries'] },
  ],
  ['get_transactions: search over 3 years', 'get_transactions', { search: 'coffee', page_size: 50 }],
  [
    'get_spending_by_category: last month',
    'get_spending_by_category',
    { start_date: daysAgo(30), end_date: daysAgo(0) },
  ],
  [
    'get_spending_by_category: last year',
    'get_spending_by_category',
    { start_date: daysAgo(365), end_date: daysAgo(0) },
  ],
];

async function toolTimes(db: pg.Client, familyId: string, currency: string) {
  // As the job runs them: planned for their own arguments (server/assistant/reply-writer.ts).
  const context = { db: plannedPerCall(db), familyId, currency, today: daysAgo(0) };
  const rows = [];
  for (const [label, name, args] of TOOL_CALLS) {
    const text = JSON.stringify(args);
    const first = await runTool(context, name, text);
    if ('error' in first.result) throw new Error(`${label}: ${JSON.stringify(first.result)}`);
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      await runTool(context, name, text);
      samples.push(performance.now() - started);
    }
    rows.push({ tool: label, p50Ms: round(percentile(samples, 50)), p95Ms: round(percentile(samples, 95)) });
    log(`${label}: p50 ${round(percentile(samples, 50))} ms`);
  }
  return rows;
}

/** The model's own time: one streamed text completion and one streamed tool call, straight from a client. */
async function modelRoundTrips(model: ModelTestServer): Promise<number> {
  const client = new OpenAI({ apiKey: 'bench', baseURL: model.baseUrl, maxRetries: 0 });
  const samples: number[] = [];
  for (let run = 0; run < REPLIES; run++) {
    model.script({ toolCalls: [{ name: 'get_accounts', arguments: {} }] }, { text: 'Your accounts are listed.' });
    const started = performance.now();
    for (let call = 0; call < 2; call++) {
      const stream = await client.chat.completions.create({
        model: 'test-model',
        stream: true,
        messages: [{ role: 'user', content: 'Accounts?' }],
      });
      for await (const _chunk of stream);
    }
    samples.push(performance.now() - started);
  }
  return percentile(samples, 50);
}

/** Kinds of slow provider, each as the reply every request gets. */
const SLOW_PROVIDERS: [label: string, reply: ScriptedReply][] = [
  ['429, Retry-After 25 s (under the 30 s cap)', { status: 429, headers: { 'retry-after': '25' } }],
  ['a token every 500 ms', { text: 'slow '.repeat(600), chunks: 600, delayMs: 500 }],
  ['no answer at all', { hang: true }],
];

/**
 * The worst `worker.stop()` per kind of slow provider: four chats queued, a worker (replies two at
 * a time) started, and stopped once both replies it took are with the provider (and, trickling,
 * half a second into the stream). The replies are removed again after each stop.
 */
async function stopTimes(db: pg.Client, databaseUrl: string, model: ModelTestServer, provider: AiProviderConfig) {
  const orm = await openOrm(databaseUrl, 2);
  const [user] = (await db.query<{ id: string }>('select id from users where ai_enabled limit 1')).rows;
  const rows = [];
  try {
    for (const [label, reply] of SLOW_PROVIDERS) {
      const samples: number[] = [];
      for (let run = 0; run < STOPS; run++) {
        model.reset();
        model.script(...Array.from({ length: 8 }, () => reply));
        const chats: string[] = [];
        for (let chat = 0; chat < 4; chat++) {
          const settings = { defaultModel: provider.model, limit: { perHour: 0 } };
          chats.push(await createChat(orm.em.fork(), user!.id, { message: `Slow ${chat}` }, settings));
        }
        const worker = await startWorker({
          connectionString: databaseUrl,
          concurrency: 4,
          aiConcurrency: 2,
          pollIntervalMs: 50,
          ai: provider,
        });
        while (model.requests.filter((request) => request.path.endsWith('/chat/completions')).length < 2) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        const started = performance.now();
        await worker.stop();
        samples.push(performance.now() - started);
        await db.query(`select graphile_worker.remove_job('chat:' || id) from unnest($1::uuid[]) as id`, [chats]);
        await db.query('delete from chats where id = any($1::uuid[])', [chats]);
      }
      rows.push({
        provider: label,
        stops: STOPS,
        worstMs: round(Math.max(...samples)),
        p50Ms: round(percentile(samples, 50)),
      });
      log(`stop with ${label}: worst ${round(Math.max(...samples))} ms`);
    }
  } finally {
    model.reset();
    await orm.close();
  }
  return rows;
}

async function main() {
  const context = await prepare();
  const model = await startModelTestServer();
  const orm = await openOrm(context.database.url, 2);
  const db = new pg.Client({ connectionString: context.database.url });
  await db.connect();
  try {
    const { familyId, currency } = context.seed;
    const tools = await toolTimes(db, familyId, currency);

    const [user] = (
      await db.query<{ id: string }>('update users set ai_enabled = true where family_id = $1 returning id', [familyId])
    ).rows;
    const provider: AiProviderConfig = {
      baseUrl: model.baseUrl,
      apiKey: 'bench',
      model: 'test-model',
      timeoutSeconds: 30,
      maxRetries: 0,
      contextTokens: 12_000,
      retryAfterMaxSeconds: 30,
      replyTimeoutSeconds: 300,
    };
    const modelMs = await modelRoundTrips(model);
    for (let reply = 0; reply < REPLIES; reply++) {
      model.script({ toolCalls: [{ name: 'get_accounts', arguments: {} }] }, { text: 'Your accounts are listed.' });
      await createChat(
        orm.em.fork(),
        user!.id,
        { message: `How are my accounts? (${reply})` },
        { defaultModel: provider.model, limit: { perHour: 0 } },
      );
    }
    const started = performance.now();
    const worker = await startWorker({
      connectionString: context.database.url,
      concurrency: 1,
      aiConcurrency: 1,
      pollIntervalMs: 50,
      ai: provider,
    });
    for (;;) {
      const { rows } = await db.query<{ pending: number; failed: number }>(
        `select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'failed')::int as failed
         from chat_messages where kind = 'assistant_message'`,
      );
      if (rows[0]!.failed) throw new Error(`${rows[0]!.failed} replies failed`);
      if (rows[0]!.pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const perReplyMs = (performance.now() - started) / REPLIES;
    await worker.stop();
    // Retries on, so a Retry-After under the cap is waited.
    const stops = await stopTimes(db, context.database.url, model, { ...provider, maxRetries: 2 });
    const result = {
      machine: machineInfo(),
      household: { transactions: context.seed.rows },
      tools,
      reply: {
        replies: REPLIES,
        perReplyMs: round(perReplyMs),
        modelRoundTripsMs: round(modelMs),
        overheadMs: round(perReplyMs - modelMs),
        note: 'one tool round (get_accounts) and a streamed answer per reply; one reply at a time',
      },
      stop: stops,
    };
    await mkdir(path.dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      [
        '',
        '| tool call (100,000 transactions) | p50 ms | p95 ms |',
        '|---|---:|---:|',
        ...tools.map((row) => `| ${row.tool} | ${row.p50Ms} | ${row.p95Ms} |`),
        '',
        `| per reply (${REPLIES} replies, instant model) | ms |`,
        '|---|---:|',
        `| job, end to end | ${result.reply.perReplyMs} |`,
        `| of which the model's two round trips | ${result.reply.modelRoundTripsMs} |`,
        `| overhead of the job | ${result.reply.overheadMs} |`,
        '',
        `| worker.stop() with two replies in flight (${STOPS} stops each) | worst ms | p50 ms |`,
        '|---|---:|---:|',
        ...stops.map((row) => `| ${row.provider} | ${row.worstMs} | ${row.p50Ms} |`),
        '',
      ].join('\n'),
    );
  } finally {
    await db.end();
    await orm.close();
    await model.close();
    await context.close();
  }
}

await main();
