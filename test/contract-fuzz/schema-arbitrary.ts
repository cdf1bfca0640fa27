import fc from 'fast-check';
import { decimalText, exactDecimal } from '../../server/core/money/exact-decimal.ts';
import { resolveRef as resolveJson } from '../support/contract-client.ts';

/** A JSON Schema node of the contract (OpenAPI 3.1, i.e. JSON Schema 2020-12). */
export type Schema = Record<string, any>;

const resolveRef = (node: Schema): Schema => resolveJson(node);

/** Longest string or array generated away from a bound: long enough to matter, short enough to be quick. */
const TYPICAL_LENGTH = 24;
const TYPICAL_ITEMS = 4;

const DAY_MS = 86_400_000;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2099, 11, 31);

function types(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.required) return ['object'];
  return ['string', 'number', 'boolean', 'null', 'object', 'array'];
}

/** Text of a few kinds: plain words, any Unicode, and the strings that break careless code. */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const typical = Math.max(minLength, Math.min(maxLength, TYPICAL_LENGTH));
  const plain = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]*$/).filter((s) => s.length <= typical);
  return fc
    .oneof(
      { weight: 4, arbitrary: plain },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: typical }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: typical }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(' ', '  \t', "O'Brien; drop table entries;--", '%_\\', '\u202e\u0301', '😀'),
      },
      { weight: 1, arbitrary: fc.constant('x'.repeat(maxLength)) },
    )
    .filter((value) => [...value].length >= minLength && [...value].length <= maxLength);
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 1000, 20_000);
  const fits = (value: string) => [...value].length >= minLength && [...value].length <= maxLength;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date':
      return fc
        .integer({ min: EARLIEST / DAY_MS, max: LATEST / DAY_MS })
        .map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10));
    case 'date-time':
      return fc.integer({ min: EARLIEST, max: LATEST }).map((ms) => new Date(ms).toISOString());
    case 'email':
      return fc.emailAddress().filter(fits);
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return text(minLength, maxLength);
}

/** Decimal places a request number usually has: none, cents, or as many as a double holds. */
function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e15;
  const max = schema.maximum ?? schema.exclusiveMaximum ?? 1e15;
  const inRange = (value: number) =>
    Number.isFinite(value) &&
    value >= min &&
    value <= max &&
    (schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || value < schema.exclusiveMaximum);
  const whole = fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31))), max: Math.floor(Math.min(max, 2 ** 31)) });
  // Mostly everyday magnitudes, so that sums and products of several fields stay within bounds too.
  const small = fc.integer({ min: Math.ceil(Math.max(min, -10_000)), max: Math.floor(Math.min(max, 10_000)) });
  if (integer) return fc.oneof(small, whole, fc.constantFrom(Math.ceil(min), Math.floor(max))).filter(inRange);
  return fc
    .oneof(
      { weight: 4, arbitrary: small },
      { weight: 3, arbitrary: small.map((n) => n / 100) },
      { weight: 1, arbitrary: whole },
      { weight: 1, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
      { weight: 1, arbitrary: fc.constantFrom(min, max, 0.0001, 12.3456) },
    )
    .filter(inRange);
}

function objectArbitrary(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>([
    ...(schema.required ?? []),
    ...(schema.allOf ?? []).flatMap((part: Schema) => resolveRef(part).required ?? []),
  ]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    // `not: {}` is how the contract says "never send this field".
    if (resolveRef(property).not && Object.keys(resolveRef(property).not).length === 0) continue;
    model[name] = valueArbitrary(property);
  }
  return fc.record(model, { requiredKeys: [...required].filter((name) => name in model) });
}

/**
 * A field that applies a shared shape in place and adds its own bounds (`allOf: [DecimalInput]`,
 * `minimum`, `maximum`) as one schema. Objects keep their `allOf` (alternatives of `required`),
 * which objectArbitrary reads.
 */
function inPlace(schema: Schema): Schema {
  if (!Array.isArray(schema.allOf) || schema.type !== undefined || schema.properties) return schema;
  const { allOf, ...own } = schema;
  return Object.assign({}, ...(allOf as Schema[]).map((part) => inPlace(resolveRef(part))), own);
}

/**
 * Values shaped by `schema`: types, enums, formats, patterns, lengths, bounds, array sizes, object
 * members. Combinators over members (`anyOf` of `required`, `dependentRequired`) are left to the
 * caller's filter with the real validator, so nothing invalid is ever called valid.
 */
export function valueArbitrary(node: Schema): fc.Arbitrary<unknown> {
  const schema = inPlace(resolveRef(node));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.oneOf ?? schema.anyOf) && !schema.type) {
    return fc.oneof(...(schema.oneOf ?? schema.anyOf).map((branch: Schema) => valueArbitrary(branch)));
  }
  const kinds = types(schema);
  const arbitraries = kinds.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        // A number or a decimal string (DecimalInput): the string spells a number within the bounds.
        if (kinds.includes('number')) return numberArbitrary(schema, false).map((n) => decimalText(exactDecimal(n)!));
        return stringArbitrary(schema);
      case 'integer':
        return numberArbitrary(schema, true);
      case 'number':
        return numberArbitrary(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const maxLength = Math.min(schema.maxItems ?? TYPICAL_ITEMS, TYPICAL_ITEMS);
        const items = valueArbitrary(schema.items ?? {});
        return schema.uniqueItems
          ? fc.uniqueArray(items, { minLength: schema.minItems ?? 0, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength: schema.minItems ?? 0, maxLength });
      }
      default:
        return objectArbitrary(schema);
    }
  });
  return arbitraries.length === 1 ? arbitraries[0]! : fc.oneof(...arbitraries);
}
