import type { SchemaObject, SchemaValue } from './schema-json.ts';

/**
 * The field notation of schemas/source (README.md there): one line per field that expands to the
 * field's JSON Schema, e.g. `string! max 64`, `integer 0..100`, `integer enum 6 | 8`, `enum? @event-actions`,
 * `array max-items 249 of enum @countries`.
 */

/** Named value lists (value-lists.yaml) that `enum @name` refers to. */
export type ValueLists = ReadonlyMap<string, readonly string[]>;

/** Value rules (field-rules.yaml) that `rule <name>` refers to: what a value must be, with its pattern. */
export type FieldRules = ReadonlyMap<string, { name: string; says: string; example: string; pattern: string }>;

/** A notation that does not parse; the caller adds the model and field it belongs to. */
export class NotationError extends Error {
  override name = 'NotationError';
}

interface Token {
  text: string;
  /** Written in double quotes: always a literal value, never a keyword. */
  quoted: boolean;
}

/** Base words: what each expands to, and whether `!` (non-empty string) and `max`/`pattern` apply. */
const BASES: Record<string, { schema: SchemaObject; stringLike: boolean; numeric: boolean }> = {
  string: { schema: { type: 'string' }, stringLike: true, numeric: false },
  uuid: { schema: { type: 'string', format: 'uuid' }, stringLike: true, numeric: false },
  email: { schema: { type: 'string', format: 'email' }, stringLike: true, numeric: false },
  'date-time': { schema: { type: 'string', format: 'date-time' }, stringLike: true, numeric: false },
  integer: { schema: { type: 'integer' }, stringLike: false, numeric: true },
  number: { schema: { type: 'number' }, stringLike: false, numeric: true },
  boolean: { schema: { type: 'boolean' }, stringLike: false, numeric: false },
  object: { schema: { type: 'object', additionalProperties: true }, stringLike: false, numeric: false },
};

/** Key order of an expanded field, so that the output reads the same way everywhere. */
const KEY_ORDER = [
  'type',
  'format',
  'enum',
  'minLength',
  'maxLength',
  'pattern',
  'x-rule',
  'minimum',
  'maximum',
  'items',
  'maxItems',
  'additionalProperties',
];

/** Expands one field notation into its JSON Schema; throws NotationError on a bad notation. */
export function parseFieldNotation(
  notation: string,
  valueLists: ValueLists,
  fieldRules: FieldRules = new Map(),
): SchemaObject {
  const tokens = tokenize(notation);
  if (tokens.length === 0) throw new NotationError('empty notation');
  const parser = new NotationParser(tokens, valueLists, fieldRules);
  const schema = parser.field();
  parser.expectEnd();
  return schema;
}

function tokenize(notation: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:("(?:[^"\\]|\\.)*")|(\|)|([^\s|"]+)|(\S))/gy;
  for (let match = pattern.exec(notation); match; match = pattern.exec(notation)) {
    const [, quoted, pipe, word, stray] = match;
    if (stray !== undefined) throw new NotationError(`unexpected ${JSON.stringify(stray)} (unclosed quote?)`);
    if (quoted !== undefined) tokens.push({ text: JSON.parse(quoted) as string, quoted: true });
    else tokens.push({ text: (pipe ?? word)!, quoted: false });
  }
  return tokens;
}

class NotationParser {
  private position = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly valueLists: ValueLists,
    private readonly fieldRules: FieldRules,
  ) {}

  /** field := array-field | enum-field | base-field */
  field(): SchemaObject {
    const head = this.next('a type');
    if (head.quoted) throw new NotationError(`expected a type, found the value "${head.text}"`);
    const word = /^(array|enum|[a-z-]+)(!?)(\??)$/.exec(head.text);
    if (!word) throw new NotationError(`unknown type "${head.text}"`);
    const [, base = '', bang, question] = word;
    const nullable = question === '?';
    if (base === 'array') return this.arrayField(nullable, bang === '!');
    if (base === 'enum') return this.enumField(nullable, bang === '!');
    return this.baseField(base, nullable, bang === '!');
  }

  expectEnd(): void {
    const extra = this.tokens[this.position];
    if (extra) throw new NotationError(`unexpected "${extra.text}"`);
  }

  /** array [max-items N] of field */
  private arrayField(nullable: boolean, nonEmpty: boolean): SchemaObject {
    if (nonEmpty) throw new NotationError('"!" applies to strings only, not to array');
    let maxItems: number | bigint | undefined;
    while (this.peek() === 'max-items') {
      this.position += 1;
      if (maxItems !== undefined) throw new NotationError('"max-items" given twice');
      maxItems = this.integer('max-items');
    }
    if (this.next('"of"').text !== 'of') throw new NotationError('expected "of" after "array"');
    const items = this.field();
    return ordered({ type: typeOf('array', nullable), items, maxItems });
  }

  /** enum[?] (@list | value | value ...); `enum?` adds null as the first value */
  private enumField(nullable: boolean, nonEmpty: boolean): SchemaObject {
    if (nonEmpty) throw new NotationError('"!" applies to strings only, not to enum');
    const values: SchemaValue[] = nullable ? [null] : [];
    const first = this.next('enum values');
    if (!first.quoted && first.text.startsWith('@')) {
      const list = this.valueLists.get(first.text.slice(1));
      if (!list) throw new NotationError(`unknown value list "${first.text}" (see value-lists.yaml)`);
      values.push(...list);
    } else {
      values.push(this.enumValue(first));
      while (this.peek() === '|') {
        this.position += 1;
        values.push(this.enumValue(this.next('a value after "|"')));
      }
    }
    return ordered({ type: typeOf('string', nullable), enum: values });
  }

  private enumValue(token: Token): string {
    if (!token.quoted && (token.text === '|' || token.text.startsWith('@'))) {
      throw new NotationError(`expected an enum value, found "${token.text}" (quote it to use it literally)`);
    }
    return token.text;
  }

  /** base[!][?] then modifiers: max N, pattern P, rule NAME, rule-or-empty NAME, LOW..HIGH */
  private baseField(word: string, nullable: boolean, nonEmpty: boolean): SchemaObject {
    const base = BASES[word];
    if (!base) throw new NotationError(`unknown type "${word}" (known: ${Object.keys(BASES).join(', ')})`);
    if (nonEmpty && !base.stringLike) throw new NotationError(`"!" applies to strings only, not to ${word}`);
    const schema: SchemaObject = { ...base.schema, type: typeOf(String(base.schema.type), nullable) };
    if (nonEmpty) schema.minLength = 1;
    while (this.position < this.tokens.length) {
      const token = this.next('a modifier');
      const range = token.quoted ? null : /^(-?\d+(?:\.\d+)?)?\.\.(-?\d+(?:\.\d+)?)?$/.exec(token.text);
      if (token.text === 'max' && !token.quoted) {
        if (!base.stringLike) throw new NotationError(`"max" (maximum length) applies to strings, not to ${word}`);
        setOnce(schema, 'maxLength', this.integer('max'), 'max');
      } else if (token.text === 'enum' && !token.quoted) {
        if (word !== 'integer') throw new NotationError(`"enum" after a type applies to integer, not to ${word}`);
        setOnce(schema, 'enum', this.integerValues(nullable), 'enum');
      } else if (token.text === 'pattern' && !token.quoted) {
        if (!base.stringLike) throw new NotationError(`"pattern" applies to strings, not to ${word}`);
        setOnce(schema, 'pattern', this.pattern(), 'pattern');
      } else if ((token.text === 'rule' || token.text === 'rule-or-empty') && !token.quoted) {
        if (!base.stringLike) throw new NotationError(`"${token.text}" applies to strings, not to ${word}`);
        const rule = this.rule(token.text);
        // The service skips its validators for an empty value of a field that may be empty.
        const optional = token.text === 'rule-or-empty' ? '?' : '';
        const grouped = rule.pattern.includes('|') || optional ? `(?:${rule.pattern})` : rule.pattern;
        setOnce(schema, 'pattern', `^${grouped}${optional}$`, 'pattern" or "rule');
        schema['x-rule'] = { name: rule.name, says: rule.says, example: rule.example };
      } else if (range) {
        if (!base.numeric) throw new NotationError(`a range applies to integer and number, not to ${word}`);
        const [, low, high] = range;
        if (low === undefined && high === undefined) throw new NotationError('a range needs at least one bound');
        if (low !== undefined) setOnce(schema, 'minimum', toNumber(low, word), 'range');
        if (high !== undefined) setOnce(schema, 'maximum', toNumber(high, word), 'range');
        if (low !== undefined && high !== undefined && Number(low) > Number(high)) {
          throw new NotationError(`empty range ${token.text}`);
        }
      } else {
        throw new NotationError(`unexpected "${token.text}" after ${word}`);
      }
    }
    return ordered(schema);
  }

  private integer(after: string): number | bigint {
    const token = this.next(`a number after "${after}"`);
    if (token.quoted || !/^\d+$/.test(token.text)) {
      throw new NotationError(`expected a whole number after "${after}", found "${token.text}"`);
    }
    return toNumber(token.text, 'integer');
  }

  /** N | N ...: the values of an integer enum (`integer enum 6 | 8`); `integer?` adds null first. */
  private integerValues(nullable: boolean): SchemaValue[] {
    const values: SchemaValue[] = nullable ? [null] : [];
    values.push(this.integer('enum'));
    while (this.peek() === '|') {
      this.position += 1;
      values.push(this.integer('|'));
    }
    return values;
  }

  private rule(after: string): { name: string; says: string; example: string; pattern: string } {
    const token = this.next(`a rule name after "${after}"`);
    const rule = this.fieldRules.get(token.text);
    if (!rule) throw new NotationError(`unknown rule "${token.text}" (see field-rules.yaml)`);
    return rule;
  }

  private pattern(): string {
    const token = this.next('a regular expression after "pattern"');
    try {
      new RegExp(token.text, 'u');
    } catch (error) {
      throw new NotationError(`invalid pattern ${JSON.stringify(token.text)}: ${(error as Error).message}`);
    }
    return token.text;
  }

  private peek(): string | undefined {
    const token = this.tokens[this.position];
    return token && !token.quoted ? token.text : undefined;
  }

  private next(expected: string): Token {
    const token = this.tokens[this.position];
    if (!token) throw new NotationError(`expected ${expected} at the end`);
    this.position += 1;
    return token;
  }
}

function typeOf(type: string, nullable: boolean): SchemaValue {
  return nullable ? [type, 'null'] : type;
}

function setOnce(schema: SchemaObject, key: string, value: SchemaValue, modifier: string): void {
  if (key in schema) throw new NotationError(`"${modifier}" given twice`);
  schema[key] = value;
}

/** Integers beyond the exact range of a JavaScript number stay bigint so that they are written exactly. */
function toNumber(text: string, word: string): number | bigint {
  if (text.includes('.')) {
    if (word === 'integer') throw new NotationError(`integer bound ${text} is not a whole number`);
    return Number(text);
  }
  const value = BigInt(text);
  return Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

function ordered(schema: Record<string, SchemaValue | undefined>): SchemaObject {
  const result: SchemaObject = {};
  for (const key of KEY_ORDER) {
    const value = schema[key];
    if (value !== undefined) result[key] = value;
  }
  return result;
}
