import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BOUNDS } from '../../server/core/money/bounds.ts';
import { createOpenApiAjv } from '../../server/http/ajv.ts';
import { MAX_ERROR_ENTRIES } from '../../server/core/errors.ts';
import { MAX_HEADER_SIZE } from '../../server/http/http-server.ts';
import {
  DECIMAL_INPUT,
  document,
  flattened,
  longestQuery,
  operations,
  requestSchemas,
  type Schema,
} from '../support/contract-limits.ts';

/**
 * The contract bounds everything a client sends (issue 9, items 8, 11, 13 and 20): a generator
 * driven by it (Schemathesis, the contract fuzz) then finds no valid-per-schema request that the
 * server refuses for size, and no request the schemas allow that the server cannot take.
 */
const schemas = document.components.schemas as Schema;
const OPENAPI_DIR = fileURLToPath(new URL('../../openapi', import.meta.url));

/** Bounded by its own rule in bytes (422 content_too_large), which maxLength cannot state. */
const CSV_CONTENT = schemas.ImportCreateRequest.properties.raw_file_content;

// A field applying a shared shape in place (`allOf: [DecimalInput]` + its bounds) is checked as one
// schema; the shared shape alone states no bounds, each field that applies it does.
const sites = requestSchemas()
  .filter(({ schema }) => schema !== CSV_CONTENT && schema !== DECIMAL_INPUT)
  .map((site) => ({ ...site, schema: flattened(site.schema) }));
const typesOf = (schema: Schema): string[] => [schema.type ?? []].flat();
const PINNED_FORMATS = new Set(['uuid', 'date', 'date-time']);

describe('every request value is bounded by the contract', () => {
  it('walks a fair number of request schemas', () => {
    expect(sites.length).toBeGreaterThan(100);
  });

  it('strings have a maxLength (or an enum, const or fixed-length format)', () => {
    const unbounded = sites
      .filter(({ schema }) => typesOf(schema).includes('string'))
      .filter(({ schema }) => schema.maxLength === undefined && !schema.enum && schema.const === undefined)
      .filter(({ schema }) => !PINNED_FORMATS.has(schema.format))
      .map(({ at }) => at);
    expect(unbounded).toEqual([]);
  });

  it('arrays have a maxItems', () => {
    const unbounded = sites.filter(({ schema }) => typesOf(schema).includes('array') && !schema.maxItems);
    expect(unbounded.map(({ at }) => at)).toEqual([]);
  });

  it('numbers have a minimum and a maximum', () => {
    const unbounded = sites
      .filter(({ schema }) => typesOf(schema).some((type) => type === 'number' || type === 'integer'))
      .filter(
        ({ schema }) =>
          (schema.minimum ?? schema.exclusiveMinimum) === undefined ||
          (schema.maximum ?? schema.exclusiveMaximum) === undefined,
      );
    expect(unbounded.map(({ at }) => at)).toEqual([]);
  });

  it('caps the error entries where the server does', () => {
    expect(schemas.Error.properties.errors.maxItems).toBe(MAX_ERROR_ENTRIES);
    expect(schemas.Error.properties.errors_count.minimum).toBe(MAX_ERROR_ENTRIES + 1);
  });

  it('allows no URL that the server cannot read, with room for the headers', () => {
    for (const { id, method, path } of operations.filter((operation) => operation.method === 'get')) {
      const length = path.length + 1 + longestQuery(id as never).length;
      expect(length * 2, `${method} ${path}: ${length} bytes`).toBeLessThan(MAX_HEADER_SIZE);
    }
  });
});

describe('number bounds mean the same to a client and to the server', () => {
  // A JSON number is a double to every validator; the server reads the double's shortest text
  // (exact-decimal.ts). A bound written with more digits than a double keeps (9999999999999.9999
  // is the double 10^13) lets a client's validator accept what the server refuses.
  const sources = readdirSync(OPENAPI_DIR, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.yaml'),
  );
  const written = sources.flatMap((file) =>
    [
      ...readFileSync(path.join(OPENAPI_DIR, file), 'utf8').matchAll(
        /^\s*(?:exclusiveM|m)(?:in|ax)imum: (-?[\d.eE+]+)\s*$/gm,
      ),
    ].map((match) => ({ file, text: match[1]! })),
  );

  it('every minimum and maximum in the contract is written as the double it stands for', () => {
    expect(written.length).toBeGreaterThan(20);
    expect(written.filter(({ text }) => String(Number(text)) !== text.replace(/^\+/, ''))).toEqual([]);
  });

  it("the server's bounds are the contract's numbers", () => {
    for (const bound of Object.values(BOUNDS)) expect(String(Number(bound))).toBe(bound);
    const amountMaxima = sites.filter(({ schema }) => typesOf(schema).includes('number') && schema.maximum >= 1e12);
    expect(new Set(amountMaxima.map(({ schema }) => String(schema.maximum)))).toEqual(
      new Set([BOUNDS.amount, BOUNDS.qty, BOUNDS.price].filter((bound) => Number(bound) >= 1e12)),
    );
  });
});

describe('rules the contract states itself (item 20)', () => {
  const ajv = createOpenApiAjv();
  ajv.addSchema(document, 'openapi');
  const valid = (name: string, body: unknown) => ajv.validate({ $ref: `openapi#/components/schemas/${name}` }, body);

  it('a transaction needs a name or a description', () => {
    const transaction = { account_id: '3f1c9a52-7b4e-4d2a-9c61-0e8b5f2d7a10', date: '2024-01-01', amount: 1 };
    expect(valid('TransactionCreateRequest', { transaction })).toBe(false);
    expect(valid('TransactionCreateRequest', { transaction: { ...transaction, name: 'a' } })).toBe(true);
    expect(valid('TransactionCreateRequest', { transaction: { ...transaction, description: 'a' } })).toBe(true);
  });

  it('a valuation takes amount and date only together', () => {
    expect(valid('ValuationUpdateRequest', { valuation: { amount: 1 } })).toBe(false);
    expect(valid('ValuationUpdateRequest', { valuation: { date: '2024-01-01' } })).toBe(false);
    expect(valid('ValuationUpdateRequest', { valuation: { amount: 1, date: '2024-01-01' } })).toBe(true);
    expect(valid('ValuationUpdateRequest', { valuation: { notes: 'n' } })).toBe(true);
  });

  it('a trade names its security by id or ticker', () => {
    const trade = {
      account_id: '3f1c9a52-7b4e-4d2a-9c61-0e8b5f2d7a10',
      date: '2024-01-01',
      type: 'buy',
      qty: 1,
      price: 1,
    };
    expect(valid('TradeCreateRequest', { trade })).toBe(false);
    expect(valid('TradeCreateRequest', { trade: { ...trade, ticker: 'VTI' } })).toBe(true);
  });

  it('has no custom validation keyword left (x-required-one-of)', () => {
    expect(JSON.stringify(document)).not.toContain('x-required-one-of');
  });
});
