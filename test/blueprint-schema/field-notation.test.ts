import { describe, expect, it } from 'vitest';
import { NotationError, parseFieldNotation } from '../../scripts/blueprint-schema/field-notation.ts';
import { buildBlueprintSchema } from '../../scripts/blueprint-schema/build-schema.ts';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import { SCHEMA_SOURCE_DIR } from '../../scripts/blueprint-schema/generate.ts';

const lists = new Map([['sizes', ['S', 'M']]]);

describe('parseFieldNotation', () => {
  it.each([
    ['string', { type: 'string' }],
    ['string!', { type: 'string', minLength: 1 }],
    ['string!? max 255', { type: ['string', 'null'], minLength: 1, maxLength: 255 }],
    ['string! max 50 pattern ^[-a-z_]+$', { type: 'string', minLength: 1, maxLength: 50, pattern: '^[-a-z_]+$' }],
    ['uuid', { type: 'string', format: 'uuid' }],
    ['email! max 254', { type: 'string', format: 'email', minLength: 1, maxLength: 254 }],
    ['date-time?', { type: ['string', 'null'], format: 'date-time' }],
    ['integer 0..100', { type: 'integer', minimum: 0, maximum: 100 }],
    ['integer -5..', { type: 'integer', minimum: -5 }],
    ['integer 0..9223372036854775807', { type: 'integer', minimum: 0, maximum: 9223372036854775807n }],
    ['number', { type: 'number' }],
    ['boolean', { type: 'boolean' }],
    ['object', { type: 'object', additionalProperties: true }],
    ['enum "6" | "8"', { type: 'string', enum: ['6', '8'] }],
    ['enum a|b | "x y"', { type: 'string', enum: ['a', 'b', 'x y'] }],
    ['enum @sizes', { type: 'string', enum: ['S', 'M'] }],
    ['enum? a | b', { type: ['string', 'null'], enum: [null, 'a', 'b'] }],
    ['integer enum 6 | 8', { type: 'integer', enum: [6, 8] }],
    ['integer? enum 6', { type: ['integer', 'null'], enum: [null, 6] }],
    ['array of uuid', { type: 'array', items: { type: 'string', format: 'uuid' } }],
    ['array max-items 3 of enum @sizes', { type: 'array', items: { type: 'string', enum: ['S', 'M'] }, maxItems: 3 }],
    [
      'array of array of integer 1..2',
      { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 2 } } },
    ],
  ])('%s', (notation, schema) => {
    expect(parseFieldNotation(notation, lists)).toEqual(schema);
  });

  it.each([
    ['', /empty/],
    ['strng', /unknown type "strng"/],
    ['integer!', /"!" applies to strings only/],
    ['integer max 5', /"max" \(maximum length\) applies to strings/],
    ['string 0..5', /range applies to integer and number/],
    ['integer 5..1', /empty range/],
    ['string max', /expected a number after "max" at the end/],
    ['string max x', /whole number after "max"/],
    ['string pattern [', /invalid pattern/],
    ['enum @nope', /unknown value list "@nope"/],
    ['enum a |', /a value after "\|"/],
    ['array uuid', /expected "of"/],
    ['string max 5 max 6', /given twice/],
    ['boolean yes', /unexpected "yes" after boolean/],
    ['enum "a', /unclosed quote/],
    ['string enum 6', /"enum" after a type applies to integer/],
    ['integer enum six', /whole number after "enum"/],
    ['integer enum 6 |', /a number after "\|" at the end/],
  ])('rejects %j', (notation, message) => {
    expect(() => parseFieldNotation(notation, lists)).toThrow(NotationError);
    expect(() => parseFieldNotation(notation, lists)).toThrow(message);
  });
});

describe('a bad notation in models.yaml', () => {
  it('names the file, the model and the field', () => {
    const source = loadBlueprintSource(SCHEMA_SOURCE_DIR);
    const token = source.models.find((model) => model.name === 'idp_core.token')!;
    const broken = { ...token, fields: [...token.fields, ['identifier', 'strng! max 255'] as [string, unknown]] };
    const models = source.models.map((model) => (model === token ? broken : model));
    expect(() => buildBlueprintSchema({ ...source, models })).toThrow(
      'models.yaml: idp_core.token.identifier: unknown type "strng"',
    );
  });
});
