import { problem, schemaCodes, withFix, withSuggestions, type Problem } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { textOf } from '../reading/node-queries.ts';
import type { FieldError } from '../schema/field-validator.ts';
import { escapePointer, resolvePointer } from '../schema/json-pointer.ts';
import { isObject, nearest, type JsonObject, type ModelInfo, type SchemaIndex } from '../schema/schema-index.ts';
import { describeType } from '../schema/schema-types.ts';
import { enumMistake } from './enum-mistake.ts';
import { hint } from './suggestions.ts';

const codes = schemaCodes;

function label(root: string, pointer: string): string {
  let text = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    text = /^\d+$/.test(part) ? `${text || root}[${part}]` : text ? `${text}.${part}` : part;
  }
  return text || root;
}

const formatWords: Record<string, string> = {
  uuid: 'a UUID',
  email: 'an email address',
  'date-time': 'a date and time (ISO 8601)',
  date: 'a date (YYYY-MM-DD)',
  uri: 'a URL',
};

function message(name: string, error: FieldError): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `${name} must be ${describeType(params.type)}.`;
    case 'const':
      return `${name} must be ${String(params.allowedValue)}.`;
    case 'format':
      return `${name} must be ${formatWords[String(params.format)] ?? `in ${String(params.format)} format`}.`;
    case 'maximum':
      return `${name} must be at most ${String(params.limit)}.`;
    case 'minimum':
      return `${name} must be at least ${String(params.limit)}.`;
    case 'exclusiveMaximum':
      return `${name} must be less than ${String(params.limit)}.`;
    case 'exclusiveMinimum':
      return `${name} must be greater than ${String(params.limit)}.`;
    case 'minLength':
      return params.limit === 1
        ? `${name} must not be empty.`
        : `${name} must be at least ${String(params.limit)} characters long.`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters long.`;
    case 'minItems':
      return `${name} must have at least ${String(params.limit)} items.`;
    case 'maxItems':
      return `${name} must have at most ${String(params.limit)} items.`;
    case 'pattern':
      return `${name} must match the pattern ${String(params.pattern)}.`;
    case 'uniqueItems':
      return `${name} must not repeat items.`;
    case 'required':
      return `${name} needs ${String(params.missingProperty)}.`;
    default:
      return `${name} ${error.message ?? 'is not valid'}.`;
  }
}

/**
 * Keys of `identifiers` that are no field of any model: the service finds the object by its
 * primary key `pk` too (an exported blueprint writes it in every entry).
 */
const lookupKeys: readonly string[] = ['pk'];

// Module functions rather than closures made per call: validateFields runs for every attrs and identifiers.
function isLookupKey(keyName: string, model: ModelInfo, name: string): boolean {
  return keyName === 'identifiers' && lookupKeys.includes(name) && !model.fieldNames.includes(name);
}

/** Ajv reports these as well as the errors of the branches they combine: the branches say more. */
const combinators = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'not']);

const rank = (error: FieldError): number => (error.keyword === 'enum' ? 0 : combinators.has(error.keyword) ? 2 : 1);

/**
 * Checks the fields of `attrs` or `identifiers` against the model's fields definition: one message
 * per value, on the value (or on the key for an unknown field).
 */
export function validateFields(
  keyName: string,
  value: BNode,
  model: ModelInfo,
  index: SchemaIndex,
  problems: Problem[],
): void {
  if (value.tag?.startsWith('!') || value.kind === 'alias') return;
  const validate = index.fieldValidator(model);
  const ownUnknownCheck = model.fields?.additionalProperties !== false;

  if (ownUnknownCheck && value.kind === 'map') {
    const entries = value.entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (entry.key.kind !== 'scalar' || entry.key.tag?.startsWith('!')) continue;
      const name = textOf(entry.key.value);
      if (model.fieldNames.includes(name) || isLookupKey(keyName, model, name)) continue;
      const [suggestion] = nearest(name, model.fieldNames, 1);
      const found = problem(codes, 'field-unknown', entry.key.range, unknownFieldMessage(model, name, suggestion));
      problems.push(withSuggestions(found, entry.key.range, [suggestion]));
    }
  }
  const report = validate?.(value);
  if (!report) return;
  const reported = new Set<string>();

  // One message per value: the most telling first (an enum lists the choices; a combinator says least).
  const errors = [...report.errors].sort((a, b) => rank(a) - rank(b));
  for (const error of errors) {
    const pointer = error.instancePath;
    if (error.keyword === 'additionalProperties') {
      const extra = String((error.params as Record<string, unknown>).additionalProperty);
      const at = `${pointer}/${escapePointer(extra)}`;
      if (pointer === '' && (ownUnknownCheck || isLookupKey(keyName, model, extra))) continue;
      const origin = report.origins.get(at);
      if (!origin || reported.has(at)) continue;
      reported.add(at);
      const text =
        pointer === ''
          ? unknownFieldMessage(model, extra, nearest(extra, model.fieldNames, 1)[0])
          : `${label(keyName, pointer)} has no field '${extra}'.`;
      problems.push(problem(codes, 'field-invalid', (origin.key ?? origin.node).range, text));
      continue;
    }
    if (reported.has(pointer)) continue;
    const origin = report.origins.get(pointer);
    if (!origin) continue;
    reported.add(pointer);
    const name = label(keyName, pointer);
    const data = origin.node.kind === 'scalar' ? origin.node.value : undefined;
    if (typeof data === 'number' && coercible(errors, pointer, data)) {
      const text = `${name} is written as the number ${data}; the schema lists strings. Quote it ("${data}"); the service converts it.`;
      problems.push(problem(codes, 'field-enum-coerced', origin.node.range, text));
      continue;
    }
    const number = typeof data === 'string' ? quotedNumber(errors, pointer, data) : undefined;
    if (number !== undefined) {
      // Converted first, then checked against the field's bounds like any number.
      const broken = brokenBound(schemaAt(index.root, model.fields, pointer), number);
      if (broken) {
        problems.push(problem(codes, 'field-invalid', origin.node.range, message(name, broken)));
        continue;
      }
      const text = `${name} is written as the string "${data}"; the schema wants a number. Write ${number} unquoted; the service converts it.`;
      const found = problem(codes, 'field-number-quoted', origin.node.range, text);
      problems.push(withFix(found, `Unquote as ${number}`, origin.node.range, String(number)));
      continue;
    }
    if (error.keyword === 'enum') {
      const mistake = enumMistake(
        name,
        origin.node,
        (error.params as Record<string, unknown>).allowedValues as unknown[],
      );
      const found = problem(codes, 'field-invalid', origin.node.range, mistake.message);
      const { fix } = mistake;
      problems.push(fix ? withFix(found, fix.title, fix.range, fix.newText) : found);
      continue;
    }
    const rule = error.keyword === 'pattern' ? ruleAt(index.root, model.fields, pointer) : undefined;
    const nullGiven = error.keyword === 'type' && origin.node.kind === 'scalar' && origin.node.value === null;
    const text = rule
      ? `${name} must be ${rule.says}, e.g. ${rule.example}.`
      : nullGiven
        ? `${name} must not be null: the service requires a value here.`
        : message(name, error);
    problems.push(problem(codes, 'field-invalid', origin.node.range, text));
  }
}

/**
 * The service's validator behind a field's pattern (`x-rule` of the generated schema): what a value
 * must be and a value that keeps it, so the message names the rule instead of quoting a pattern.
 */
function ruleAt(root: JsonObject, fields: unknown, pointer: string): { says: string; example: string } | undefined {
  const rule = schemaAt(root, fields, pointer)?.['x-rule'];
  if (!isObject(rule) || typeof rule.says !== 'string' || typeof rule.example !== 'string') return undefined;
  return { says: rule.says, example: JSON.stringify(rule.example) };
}

/** A number whose string form is in the string enum at that place: the service converts it. */
function coercible(errors: readonly FieldError[], pointer: string, data: number): boolean {
  return errors.some((error) => {
    const allowed = (error.params as Record<string, unknown>).allowedValues;
    return (
      error.instancePath === pointer &&
      error.keyword === 'enum' &&
      Array.isArray(allowed) &&
      allowed.includes(String(data))
    );
  });
}

/** Number syntax the service converts: `int()` after dropping a `.0` tail, and `float()`. */
const integerText = /^[-+]?\d+(\.0*)?$/;
const numberText = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * The number a string stands for when the only errors at its place are a numeric `type` (and an
 * enum that lists that number): the service converts such a string. Undefined otherwise.
 */
function quotedNumber(errors: readonly FieldError[], pointer: string, data: string): number | undefined {
  const text = data.trim();
  if (!numberText.test(text)) return undefined;
  const number = Number(text);
  const here = errors.filter((error) => error.instancePath === pointer);
  const fits = (error: FieldError): boolean => {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'enum') return Array.isArray(params.allowedValues) && params.allowedValues.includes(number);
    if (error.keyword !== 'type') return false;
    const types = String(params.type).split(',');
    return types.includes('number') || (types.includes('integer') && integerText.test(text));
  };
  return here.some((error) => error.keyword === 'type') && here.every(fits) ? number : undefined;
}

/** The schema of the value at `pointer` inside a value of `schema` (following `$ref`s). */
function schemaAt(root: JsonObject, schema: unknown, pointer: string): JsonObject | undefined {
  const deref = (node: unknown): JsonObject | undefined => {
    let current = isObject(node) ? node : undefined;
    for (let hop = 0; hop < 8 && typeof current?.$ref === 'string'; hop++) current = resolvePointer(root, current.$ref);
    return current;
  };
  let current = deref(schema);
  for (const raw of pointer.split('/').slice(1)) {
    if (!current) return undefined;
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const properties = isObject(current.properties) ? current.properties : {};
    current = deref(
      Object.hasOwn(properties, part) ? properties[part] : (current.items ?? current.additionalProperties),
    );
  }
  return current;
}

/** The first bound of `schema` that `value` breaks, as the validator would report it. */
function brokenBound(schema: JsonObject | undefined, value: number): FieldError | undefined {
  const broken: [keyword: string, test: (limit: number) => boolean][] = [
    ['minimum', (limit) => value < limit],
    ['maximum', (limit) => value > limit],
    ['exclusiveMinimum', (limit) => value <= limit],
    ['exclusiveMaximum', (limit) => value >= limit],
  ];
  for (const [keyword, test] of broken) {
    const limit = schema?.[keyword];
    if (typeof limit === 'number' && test(limit)) return { keyword, instancePath: '', params: { limit } };
  }
  return undefined;
}

function unknownFieldMessage(model: ModelInfo, name: string, suggestion: string | undefined): string {
  return `${model.name} has no field '${name}'; the service ignores it.${hint(suggestion)}`;
}
