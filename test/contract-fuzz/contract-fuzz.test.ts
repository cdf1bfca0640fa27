import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot } from '../support/database-snapshot.ts';
import { createHousehold, type TestHousehold } from '../support/households.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createFixtures, createTransaction } from '../support/transactions-fixtures.ts';
import { fuzzOperations, type FuzzOperation } from './contract-operations.ts';
import { FuzzModel, type ForeignIds } from './fuzz-model.ts';
import { addUnknownMember, mutate, mutationArbitrary, UNKNOWN_NAMES, type Mutation } from './request-mutation.ts';
import { refusalIsDocumented } from './server-rules.ts';
import { valueArbitrary } from './schema-arbitrary.ts';

/**
 * Contract fuzzing: sequences of requests generated from the contract's own schemas (valid ones,
 * and ones with a single mutation) run against the real server on a fresh family each run, with
 * references pointed at the records earlier requests created. Every answer must be documented
 * and never a 5xx; a refused request must leave the database as it was; an invalid request must
 * be refused; a valid one must succeed unless a rule the contract lists as checked by the server
 * explains why not; a record that exists must be found and one that does not, must not.
 *
 * `npm test` runs a bounded number of sequences; `npm run fuzz:contract` runs many more.
 * FUZZ_RUNS, FUZZ_COMMANDS and FUZZ_SEED tune it; FUZZ_SHRINK=1 shrinks a failure to its shortest form.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const COMMANDS = Number(process.env.FUZZ_COMMANDS ?? 40);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** Answers per operation and status class, across all runs: printed, and checked for reach. */
const outcomes = new Map<string, Record<string, number>>();
function count(operationId: string, status: number): void {
  const row = outcomes.get(operationId) ?? {};
  const key = `${Math.floor(status / 100)}xx`;
  row[key] = (row[key] ?? 0) + 1;
  outcomes.set(operationId, row);
}

interface Real {
  server: TestServer;
  household: TestHousehold;
}

interface Request {
  operation: FuzzOperation;
  /** How the request was made: from the schemas as they are, or with one mutation. */
  variant: 'valid' | 'mutated body' | 'mutated query' | 'unknown member';
  /** For 'unknown member': where in the body the member no schema defines was added. */
  unknownMember?: { pointer: string; name: string };
  body: unknown;
  query: Record<string, unknown>;
  /** Choices for the path id and every reference in the request (see FuzzModel.pick). */
  choices: number[];
  /** A malformed path id instead of a chosen one. */
  malformedId: boolean;
  readOnlyKey: boolean;
}

const asText = (item: unknown) => (item !== null && typeof item === 'object' ? JSON.stringify(item) : String(item));

/** The query as the server reads it: every value text, arrays (sent as `name[]=`) as lists of text. */
function queryAsSent(query: Record<string, unknown>): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(query)
      // An empty list puts nothing in the URL.
      .filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0))
      .map(([name, value]) => [name, Array.isArray(value) ? value.map(asText) : asText(value)]),
  );
}

function serialiseQuery(query: Record<string, string | string[]>): string {
  return Object.entries(query)
    .flatMap(([name, value]) =>
      Array.isArray(value)
        ? value.map((item) => `${encodeURIComponent(`${name}[]`)}=${encodeURIComponent(item)}`)
        : [`${encodeURIComponent(name)}=${encodeURIComponent(value)}`],
    )
    .join('&');
}

function messages(body: unknown): string[] {
  const error = body as { message?: string; errors?: { message: string }[] } | undefined;
  return [error?.message ?? '', ...(error?.errors ?? []).map((entry) => entry.message)];
}

class CallCommand implements fc.AsyncCommand<FuzzModel, Real> {
  constructor(private readonly request: Request) {}

  check(): boolean {
    return true;
  }

  async run(model: FuzzModel, real: Real): Promise<void> {
    const { operation, choices } = this.request;
    const picked = model.pick(operation.resource, choices[0]!, crypto.randomUUID());
    const pathId = operation.pathParameter ? (this.request.malformedId ? 'not-an-id' : picked.id) : undefined;
    const body = model.pointReferences(this.request.body, choices.slice(1));
    const query = model.pointReferences(this.request.query, choices.slice(1));
    const path = operation.path.replace(/\{\w+\}/, encodeURIComponent(pathId ?? ''));
    const validBody = !operation.body || operation.body.validate(structuredClone(body.value));
    const sentQuery = queryAsSent(query.value as Record<string, unknown>);
    const validQuery = operation.validateQuery(structuredClone(sentQuery));
    const validPath = !operation.pathParameter || !this.request.malformedId;
    // An unknown id in a list filter just matches nothing; in a body or path it must be refused.
    const allKnown = body.allKnown && (!operation.pathParameter || picked.known);

    const before: Record<string, unknown> = await databaseSnapshot(real.server);
    // The client throws when the status is not documented for the operation or the body breaks its schema.
    const queryText = serialiseQuery(sentQuery);
    const response = await real.server.api.request(operation.method, path, {
      key: this.request.readOnlyKey ? real.household.readKey : real.household.writeKey,
      query: queryText,
      // Always JSON text: the client would send a bare string verbatim.
      body: operation.body ? JSON.stringify(body.value ?? null) : undefined,
    });
    const seen = `${operation.method} ${path}?${decodeURIComponent(queryText).slice(0, 300)} ${JSON.stringify(body.value)?.slice(0, 500)} -> ${response.status} ${JSON.stringify(response.body)?.slice(0, 500)}`;
    count(operation.id, response.status);
    expect(response.status, seen).toBeLessThan(500);
    if (response.status >= 300) {
      const after: Record<string, unknown> = await databaseSnapshot(real.server);
      const changed = Object.keys(after)
        .filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]))
        .map((key) => `${key}: ${JSON.stringify(before[key])} -> ${JSON.stringify(after[key])}`);
      expect(changed, `database changed by ${seen}`).toEqual([]);
    }

    if (this.request.readOnlyKey && operation.scope === 'read_write') {
      expect(response.status, seen).toBe(403);
    } else if (!validPath) {
      expect(response.status, seen).toBe(404);
    } else if (this.request.unknownMember) {
      // One rule for names the contract does not define: named at its pointer, whatever else holds.
      const { pointer, name } = this.request.unknownMember;
      expect(validBody, `the contract must refuse a member it does not define: ${seen}`).toBe(false);
      expect(response.status, seen).toBe(422);
      const entries = (response.body as { errors: { path?: string; message: string }[] }).errors;
      expect(
        entries.some(
          (entry) => entry.path === `/body${pointer}` && entry.message.startsWith(`${name} is not a known field`),
        ),
        `the 422 must name the unknown member at /body${pointer}: ${seen}`,
      ).toBe(true);
    } else if (!validBody || !validQuery) {
      expect([404, 422], `an invalid request must be refused: ${seen}`).toContain(response.status);
    } else if (!allKnown) {
      expect([404, 422], `a request naming a record the family does not have must be refused: ${seen}`).toContain(
        response.status,
      );
    } else if (response.status >= 400) {
      expect(
        refusalIsDocumented(response.status, messages(response.body)),
        `a valid request was refused for a reason the contract does not list: ${seen}`,
      ).toBe(true);
    }
    // A transfer goes with either of its transactions, and rejecting a suggestion deletes it: after
    // any change, transfers are known again only once listed or made again.
    if (response.status < 300 && operation.method !== 'GET') model.forget('transfers');
    // An account goes with everything written to it (or is marked for a job that deletes it):
    // which entries and imports were its own the model does not know, so they are all known
    // again only once listed or made again.
    if (response.status < 300 && operation.id === 'deleteAccount') {
      for (const resource of ['transactions', 'trades', 'valuations', 'holdings', 'imports']) model.forget(resource);
    }
    if (response.status < 300 && operation.answersWithResource) {
      model.learn(operation.resource, operation.method, pathId, response.body);
    }
  }

  toString(): string {
    const { operation, variant, body, query } = this.request;
    return `${operation.id} (${variant}) ${JSON.stringify({ body, query }).slice(0, 300)}`;
  }
}

/** Runs the background jobs (account syncs): derived records may change, so they are relearned. */
class DrainJobsCommand implements fc.AsyncCommand<FuzzModel, Real> {
  check(): boolean {
    return true;
  }
  async run(model: FuzzModel, real: Real): Promise<void> {
    await real.server.drainJobs();
    model.forget('holdings');
    model.forget('transfers');
  }
  toString(): string {
    return 'drainJobs';
  }
}

function queryArbitrary(operation: FuzzOperation): fc.Arbitrary<Record<string, unknown>> {
  const model = Object.fromEntries(
    operation.query.map((parameter) => [parameter.name, valueArbitrary(parameter.schema)]),
  );
  return fc.record(model, { requiredKeys: [] }).filter((query) => operation.validateQuery(queryAsSent(query)));
}

/** A query is always a set of named values: a mutation that replaces the whole of it adds a stray one instead. */
function mutateQueryObject(query: Record<string, unknown>, mutation: Mutation): Record<string, unknown> {
  const mutated = mutate(query, mutation);
  return mutated && typeof mutated === 'object' && !Array.isArray(mutated)
    ? (mutated as Record<string, unknown>)
    : { ...query, unexpected_field: mutation.breaker };
}

function commandArbitrary(operation: FuzzOperation): fc.Arbitrary<fc.AsyncCommand<FuzzModel, Real>> {
  const validBody = operation.body
    ? valueArbitrary(operation.body.schema).filter((value) => operation.body!.validate(structuredClone(value)))
    : fc.constant(undefined);
  const query = queryArbitrary(operation);
  const variant = fc.constantFrom<Request['variant']>(
    'valid',
    'valid',
    'valid',
    'valid',
    'mutated body',
    'mutated query',
    'unknown member',
  );
  return fc
    .record({
      variant,
      body: validBody,
      query,
      mutation: mutationArbitrary,
      choices: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
      readOnlyKey: fc.nat(19).map((n) => n === 0),
      malformedRoll: fc.nat(29),
      unknownName: fc.constantFrom(...UNKNOWN_NAMES),
    })
    .map(({ mutation, malformedRoll, unknownName, ...request }) => {
      const mutateBody = request.variant === 'mutated body' && operation.body;
      const mutateQuery = request.variant === 'mutated query' && operation.query.length > 0;
      const added =
        request.variant === 'unknown member' && operation.body
          ? addUnknownMember(request.body, mutation.at, unknownName)
          : undefined;
      return new CallCommand({
        ...request,
        operation,
        variant: added ? 'unknown member' : mutateBody ? 'mutated body' : mutateQuery ? 'mutated query' : 'valid',
        body: added ? added.value : mutateBody ? mutate(request.body, mutation) : request.body,
        unknownMember: added && { pointer: added.pointer, name: unknownName },
        query: mutateQuery ? mutateQueryObject(request.query, mutation) : request.query,
        malformedId: malformedRoll === 0,
      });
    });
}

let server: TestServer;
const foreign: ForeignIds = {};

/** Each run's family starts with a few records of each kind, so early requests have something to name. */
async function startingRecords(household: TestHousehold, model: FuzzModel): Promise<FuzzModel> {
  const fx = await createFixtures(server, household.writeKey);
  const tradable = await Promise.all(
    [
      { name: 'Brokerage', account_type: 'investment' },
      { name: 'Coins', account_type: 'crypto', subtype: 'exchange' },
    ].map((account) => server.api.call('createAccount', { key: household.writeKey, body: { account } })),
  );
  const ids = (group: Record<string, { id: string }>) => Object.values(group).map((record) => record.id);
  model.know('accounts', [...ids(fx.accounts), ...tradable.map((created) => created.body.data.id as string)]);
  model.know('categories', ids(fx.categories));
  model.know('merchants', ids(fx.merchants));
  model.know('tags', ids(fx.tags));
  // A position to sell from, and a security to name by id.
  const trade = await server.api.call('createTrade', {
    key: household.writeKey,
    body: {
      trade: {
        account_id: tradable[0]!.body.data.id,
        date: '2024-01-02',
        type: 'buy',
        qty: 100,
        price: 10,
        ticker: 'FUZZ',
      },
    },
  });
  model.know('trades', [trade.body.data.id]);
  model.know('securities', [trade.body.data.security.id]);
  return model;
}

beforeAll(async () => {
  // The assistant's provider is a closed port: replies the jobs write fail at once, as they would
  // against a provider that is down, and the chat operations are open to the fuzzed families.
  server = await startTestServer({
    rateLimitPerAddress: 0,
    rateLimitPerCredential: 0,
    aiMessagesPerHour: 0,
    ai: {
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: undefined,
      model: 'fuzz',
      timeoutSeconds: 1,
      maxRetries: 0,
      contextTokens: 12_000,
      retryAfterMaxSeconds: 30,
      replyTimeoutSeconds: 300,
    },
  });
  // Another family's records: every request naming one must be answered as if it did not exist.
  const other = await createHousehold(server);
  const fx = await createFixtures(server, other.writeKey);
  const transaction = await createTransaction(server, other.writeKey, {
    account_id: fx.accounts.checking.id,
    date: '2026-01-02',
    amount: 10,
    name: 'Theirs',
  });
  // A security of their own (a trade's ticker creates it): prices and trades must not reach it.
  const depot = await server.api.call('createAccount', {
    key: other.writeKey,
    body: { account: { name: 'Their depot', account_type: 'investment' } },
  });
  const theirTrade = await server.api.call('createTrade', {
    key: other.writeKey,
    body: {
      trade: { account_id: depot.body.data.id, date: '2024-01-02', type: 'buy', qty: 1, price: 1, ticker: 'THEIRS' },
    },
  });
  Object.assign(foreign, {
    securities: [theirTrade.body.data.security.id],
    accounts: [fx.accounts.checking.id],
    categories: [fx.categories.groceries.id],
    merchants: [fx.merchants.airline.id],
    tags: [fx.tags.work.id],
    transactions: [transaction.id],
  });
});
afterAll(() => server?.close());

describe('the contract under generated request sequences', () => {
  it(`holds for ${RUNS} sequences of up to ${COMMANDS} requests`, async () => {
    const commands = [
      ...fuzzOperations.map((operation) => ({
        arbitrary: commandArbitrary(operation),
        // Creating records is what makes later requests meaningful.
        weight: operation.method === 'POST' ? 3 : 1,
      })),
      { arbitrary: fc.constant(new DrainJobsCommand()), weight: 1 },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.commands(
          commands.flatMap(({ arbitrary, weight }) => Array.from({ length: weight }, () => arbitrary)),
          { maxCommands: COMMANDS, size: 'max' },
        ),
        async (sequence) => {
          const household = await createHousehold(server, { aiEnabled: true });
          const model = await startingRecords(household, new FuzzModel(foreign));
          await fc.asyncModelRun(() => ({ model, real: { server, household } }), sequence);
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: process.env.FUZZ_SHRINK !== '1', verbose: 1 },
    );
    console.info(
      'contract fuzz answers per operation:\n' +
        [...outcomes].map(([id, row]) => `  ${id.padEnd(20)} ${JSON.stringify(row)}`).join('\n'),
    );
  }, 600_000);
});
