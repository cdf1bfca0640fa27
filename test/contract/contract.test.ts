import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_OPERATIONS } from '../../server/http/contract.ts';
import { BUNDLED_SPEC_PATH, loadOpenApiDocument } from '../../server/http/openapi-document.ts';
import { checkResponse, contractOperations, resolveRef } from '../support/contract-client.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const run = promisify(execFile);
const document = loadOpenApiDocument();

/** Every operation the seed names, plus those docs/api-decisions.md#operations-beyond-the-seed adds. */
const REQUIRED_OPERATIONS = [
  'GET /api/v1/transactions',
  'POST /api/v1/transactions',
  'GET /api/v1/transactions/{id}',
  'PATCH /api/v1/transactions/{id}',
  'DELETE /api/v1/transactions/{id}',
  'POST /api/v1/valuations',
  'GET /api/v1/valuations/{id}',
  'PATCH /api/v1/valuations/{id}',
  'GET /api/v1/trades',
  'POST /api/v1/trades',
  'GET /api/v1/trades/{id}',
  'PATCH /api/v1/trades/{id}',
  'DELETE /api/v1/trades/{id}',
  'GET /api/v1/holdings',
  'GET /api/v1/holdings/{id}',
  'GET /api/v1/imports',
  'POST /api/v1/imports',
  'GET /api/v1/imports/{id}',
  'GET /api/v1/chats',
  'POST /api/v1/chats',
  'GET /api/v1/chats/{id}',
  'PATCH /api/v1/chats/{id}',
  'DELETE /api/v1/chats/{id}',
  'POST /api/v1/chats/{chat_id}/messages',
  'POST /api/v1/chats/{chat_id}/messages/retry',
  'POST /api/v1/auth/sso_link',
  'POST /api/v1/auth/sso_create_account',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/refresh',
  'GET /api/v1/accounts',
  'POST /api/v1/accounts',
  'GET /api/v1/accounts/{id}',
  'GET /api/v1/categories',
  'POST /api/v1/categories',
  'GET /api/v1/categories/{id}',
  'GET /api/v1/merchants',
  'POST /api/v1/merchants',
  'GET /api/v1/merchants/{id}',
  'GET /api/v1/tags',
  'POST /api/v1/tags',
  'GET /api/v1/tags/{id}',
  'PATCH /api/v1/tags/{id}',
  'DELETE /api/v1/tags/{id}',
  'GET /api/v1/securities',
  'GET /api/v1/securities/{id}',
  'GET /api/v1/exchange_rates',
  'POST /api/v1/exchange_rates',
  'GET /api/v1/security_prices',
  'POST /api/v1/security_prices',
  'GET /api/v1/transfers',
  'POST /api/v1/transfers',
  'GET /api/v1/transfers/{id}',
  'DELETE /api/v1/transfers/{id}',
  'POST /api/v1/transfers/{id}/confirm',
  'POST /api/v1/transfers/{id}/reject',
  'GET /api/v1/balances',
  'GET /api/v1/balances/{id}',
  'GET /api/v1/balance_sheet',
];

describe('the contract', () => {
  it('describes every operation of the seed and those we added beyond it', () => {
    const present = contractOperations.map((operation) => `${operation.method} ${operation.path}`);
    expect(present).toEqual(expect.arrayContaining(REQUIRED_OPERATIONS));
  });

  it('states the scope of every secured operation: read for GET, read_write for changes', () => {
    for (const [, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        const op = operation as { security?: unknown[]; 'x-scope'?: string; operationId: string };
        if (typeof op.operationId !== 'string' || (op.security && op.security.length === 0)) continue;
        expect({ id: op.operationId, scope: op['x-scope'] }).toEqual({
          id: op.operationId,
          scope: method === 'get' ? 'read' : 'read_write',
        });
      }
    }
  });

  it('lists its public operations where the code expects them', () => {
    const open = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item ?? {}).flatMap((operation) => {
        const op = operation as { operationId?: string; security?: unknown[] };
        return op.operationId && op.security?.length === 0 ? [op.operationId] : [];
      }),
    );
    expect(open.sort()).toEqual([...PUBLIC_OPERATIONS].sort());
  });

  it('has a generated types file that is current with the spec', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'types-'));
    try {
      const output = path.join(directory, 'api-types.ts');
      await run(process.execPath, [
        path.resolve('node_modules/openapi-typescript/bin/cli.js'),
        BUNDLED_SPEC_PATH,
        '-o',
        output,
      ]);
      const [fresh, committed] = await Promise.all([
        readFile(output, 'utf8'),
        readFile('server/core/api-types.generated.ts', 'utf8'),
      ]);
      expect(committed, 'server/core/api-types.generated.ts is stale: run npm run generate').toBe(fresh);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('closes every object of every request body and documents 415 where a body is taken', () => {
    const open: string[] = [];
    /** Objects a body may hold; a branch of allOf/anyOf that only lists `required` is a rule, not an object. */
    const walk = (node: Record<string, any>, at: string, seen: Set<object>) => {
      const schema = resolveRef(node) as Record<string, any>;
      if (seen.has(schema)) return;
      seen.add(schema);
      if (schema.properties && schema.additionalProperties !== false) open.push(at);
      for (const keyword of ['allOf', 'anyOf', 'oneOf'])
        (schema[keyword] ?? []).forEach((branch: Record<string, any>, index: number) =>
          walk(branch, `${at}/${keyword}/${index}`, seen),
        );
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        walk(property as Record<string, any>, `${at}/${name}`, seen);
      if (schema.items) walk(schema.items, `${at}/items`, seen);
    };
    const withBody: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        const op = operation as { requestBody?: { content: Record<string, { schema: object }> }; responses: object };
        if (!op.requestBody) continue;
        withBody.push(`${method} ${path}`);
        expect(Object.keys(op.requestBody.content), `${method} ${path}`).toEqual(['application/json']);
        expect(Object.keys(op.responses), `${method} ${path} documents 415`).toContain('415');
        walk(op.requestBody.content['application/json']!.schema as Record<string, any>, `${method} ${path}`, new Set());
      }
    }
    expect(withBody.length).toBeGreaterThan(20);
    expect(open, 'request body objects without additionalProperties: false').toEqual([]);
  });

  it('takes Idempotency-Key on every write that takes a credential, and on no sign-in', () => {
    const writes: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        if (!['post', 'patch', 'delete'].includes(method)) continue;
        const op = operation as {
          security?: unknown[];
          parameters?: Record<string, any>[];
          responses: Record<string, Record<string, any>>;
        };
        const named = `${method} ${path}`;
        const takesKey = (op.parameters ?? []).some(
          (parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey',
        );
        if (op.security?.length === 0) {
          expect(takesKey, `${named} answers with credentials: no Idempotency-Key`).toBe(false);
          continue;
        }
        writes.push(named);
        expect(takesKey, `${named} takes Idempotency-Key`).toBe(true);
        expect(Object.keys(op.responses), `${named} documents 409 and 422`).toEqual(
          expect.arrayContaining(['409', '422']),
        );
        for (const [status, response] of Object.entries(op.responses)) {
          if (!status.startsWith('2')) continue;
          expect(Object.keys(resolveRef(response).headers ?? {}), `${named} ${status}`).toContain(
            'Idempotency-Replayed',
          );
        }
      }
    }
    expect(writes.length).toBeGreaterThan(25);
  });

  it('makes the response check fail on a body off the contract', () => {
    const meta = {
      current_page: 1,
      per_page: 25,
      total_count: 0,
      total_count_exact: true,
      total_pages: 0,
      next_page: null,
      prev_page: null,
    };
    expect(() => checkResponse('listTags', 200, { data: [], meta })).not.toThrow();
    expect(() => checkResponse('listTags', 200, { data: [{ id: 'x' }], meta })).toThrow(/breaks the contract/);
    expect(() => checkResponse('listTags', 200, { data: [], meta: { ...meta, surprise: 1 } })).toThrow(
      /breaks the contract/,
    );
    // Other statuses are documented through `default`: the error shape.
    expect(() =>
      checkResponse('listTags', 418, { error: 'teapot', message: 'Short and stout', errors: [] }),
    ).not.toThrow();
    expect(() => checkResponse('listTags', 418, {})).toThrow(/breaks the contract/);
  });
});

describe('serving the contract', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('serves the bundled document without credentials', async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual(JSON.parse(await readFile(BUNDLED_SPEC_PATH, 'utf8')));
  });

  it('serves the rendered docs page', async () => {
    const response = await fetch(`${server.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toContain(document.info.title);
    expect(html).toContain('listTransactions');
  });
});
