import type { Ajv, ErrorObject, Plugin } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { BNode } from '../reading/blueprint-node.ts';
import { escapePointer, resolvePointer } from './json-pointer.ts';
import { typeNames } from './schema-types.ts';

/** A schema error as Ajv words it (keyword, instancePath, params), whoever found it. */
export type FieldError = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params'> & { message?: string };

/** Where a JSON pointer of the checked value is written: the value's node and, for a property, its key. */
export interface Origin {
  node: BNode;
  key?: BNode;
}

export interface FieldReport {
  errors: FieldError[];
  /** The origin of every pointer an error names (and of `pointer/extra` for unknown properties). */
  origins: ReadonlyMap<string, Origin>;
}

/** Checks a value (the `attrs` or `identifiers` of an entry); undefined when it is valid. */
export type FieldValidator = (node: BNode) => FieldReport | undefined;

type JsonObject = Record<string, unknown>;
type Check = (node: BNode, depth: number, report: Report) => void;

/** What one validation found so far, and where the value being checked is. */
interface Report {
  errors: FieldError[];
  /** Made on the first error: most values are valid. */
  origins: Map<string, Origin> | undefined;
  /** Keys and indexes from the validated value to the current one: a pointer is made of them only for an error. */
  path: (string | number)[];
}

const pointerOf = (path: readonly (string | number)[]): string => {
  let pointer = '';
  for (const part of path) pointer += `/${typeof part === 'number' ? part : escapePointer(part)}`;
  return pointer;
};

/** Records where the current value is written, unless an earlier error did. */
const noteOrigin = (report: Report, origin: Origin): void => {
  const pointer = pointerOf(report.path);
  report.origins ??= new Map();
  if (!report.origins.has(pointer)) report.origins.set(pointer, origin);
};

/** Deeper values are not checked (like a marker): they are never real blueprint fields. */
const MAX_DEPTH = 100;

/** Annotations and keywords this compiler implements; any other keyword leaves the model to Ajv. */
const annotations = new Set(['description', 'title', 'default', 'examples', '$comment', 'readOnly', 'writeOnly']);
const implemented = new Set([
  ...annotations, 'type', 'enum', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'pattern', 'items', 'minItems', 'maxItems', 'properties', 'required', 'additionalProperties', '$ref',
]); // prettier-ignore
/** Vendor keywords (`x-...`, such as the generator's `x-references`) only annotate, as unknown keywords do. */
const isAnnotation = (keyword: string): boolean => annotations.has(keyword) || keyword.startsWith('x-');

type FormatCheck = (value: string) => boolean;

/** The full-mode formats of ajv-formats, checked as Ajv would check them. */
const formatChecks = new Map<string, FormatCheck>();
for (const [name, format] of Object.entries(fullFormats as Record<string, unknown>)) {
  const definition = format && typeof format === 'object' && 'validate' in format ? format.validate : format;
  if (definition instanceof RegExp) formatChecks.set(name, (value) => definition.test(value));
  else if (typeof definition === 'function') formatChecks.set(name, (value) => Boolean(definition(value)));
}

/** The ajv-formats plugin, for the Ajv fallback (a CommonJS module: its export may be wrapped). */
export function formatPlugin(): Plugin<unknown> {
  const plugin = addFormats as unknown as Plugin<unknown> & { default?: Plugin<unknown> };
  return plugin.default ?? plugin;
}

const isDeferred = (node: BNode): boolean => node.kind === 'alias' || node.tag?.startsWith('!') === true;

// JSON types as bits: a `type` keyword becomes one mask, and a value is tested against it with no
// loop or call (every value of every entry is, in code V8 has not optimised yet).
const typeBits: Readonly<Record<string, number>> = {
  string: 1, number: 2, integer: 4, boolean: 8, null: 16, object: 32, array: 64,
}; // prettier-ignore

/** Whether an untagged node fits the types of `mask`: the answers of `fitsTypeNames` (schema-types.ts). */
function fitsTypeMask(node: BNode, mask: number): boolean {
  if (node.kind === 'map') return (mask & 32) !== 0;
  if (node.kind === 'seq') return (mask & 64) !== 0;
  if (node.kind !== 'scalar') return true;
  const value = node.value;
  if (typeof value === 'string') return (mask & 1) !== 0;
  if (typeof value === 'number') return (mask & 2) !== 0 || ((mask & 4) !== 0 && Number.isInteger(value));
  if (typeof value === 'boolean') return (mask & 8) !== 0;
  return (mask & 16) !== 0;
}

const codePoints = (value: string): number => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};

/**
 * Compiles a field definition into a validator that walks the parsed nodes directly: no plain
 * copy of the data, errors worded like Ajv's, compiled in microseconds. Tagged values (and aliases)
 * are resolved at apply time, so they pass any schema. A definition using a keyword outside the
 * implemented set is compiled by Ajv instead (`ajv()` is only called then).
 */
export function compileFieldValidator(definition: JsonObject, root: JsonObject, ajv: () => Ajv): FieldValidator {
  const compiled = new Map<JsonObject, Check>();
  const compile = (schema: unknown): Check => {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return () => {};
    const object = schema as JsonObject;
    const known = compiled.get(object);
    if (known) return known;
    // Placeholder first: a recursive $ref reaches this schema again while it is being compiled.
    let body: Check = () => {};
    compiled.set(object, (node, depth, report) => body(node, depth, report));
    body = compileKeywords(object, compile, root);
    // Later uses call the body itself: one call less per value checked.
    compiled.set(object, body);
    return body;
  };
  let check: Check;
  try {
    check = compile(definition);
  } catch (error) {
    if (!(error instanceof UnsupportedSchema)) throw error;
    return compileAjvFieldValidator(definition, root, ajv());
  }
  return (node) => {
    // Left over only by a check that threw; setting the length of an empty array would drop its room.
    if (sharedPath.length > 0) sharedPath.length = 0;
    const report: Report = { errors: [], origins: undefined, path: sharedPath };
    check(node, 0, report);
    return report.errors.length > 0 ? { errors: report.errors, origins: report.origins ?? new Map() } : undefined;
  };
}

/**
 * The `path` of every validation (one never runs inside another, and each leaves it empty): an
 * array per validation got room for 17 keys on its first push, some 3 MB of garbage over the
 * `attrs` and `identifiers` of 10,000 entries.
 */
const sharedPath: (string | number)[] = [];

class UnsupportedSchema extends Error {}

function compileKeywords(schema: JsonObject, compile: (schema: unknown) => Check, root: JsonObject): Check {
  for (const keyword of Object.keys(schema)) {
    if (!implemented.has(keyword) && !isAnnotation(keyword)) throw new UnsupportedSchema(keyword);
  }
  if (typeof schema.$ref === 'string') {
    const target = resolvePointer(root, schema.$ref);
    if (target === undefined || Object.keys(schema).some((key) => key !== '$ref' && !isAnnotation(key))) {
      throw new UnsupportedSchema('$ref');
    }
    return compile(target);
  }
  const checks: Check[] = [];
  const fail = (report: Report, node: BNode, keyword: string, params: Record<string, unknown>) => {
    report.errors.push({ keyword, instancePath: pointerOf(report.path), params });
    noteOrigin(report, { node });
  };

  const { type } = schema;
  if (type !== undefined) {
    const mask = typeNames(type).reduce((bits, name) => bits | (typeBits[name] ?? 0), 0);
    checks.push((node, _depth, report) => {
      if (!fitsTypeMask(node, mask)) fail(report, node, 'type', { type: Array.isArray(type) ? type.join(',') : type });
    });
  }
  if (Array.isArray(schema.enum)) {
    const allowed = schema.enum;
    const plain = allowed.every((value) => value === null || typeof value !== 'object');
    if (!plain) throw new UnsupportedSchema('enum');
    // A set has the same equality as `includes` (SameValueZero), and some enums list hundreds of values.
    const allowedSet = new Set(allowed);
    checks.push((node, _depth, report) => {
      const value = node.kind === 'scalar' ? node.value : undefined;
      if (node.kind !== 'scalar' || !allowedSet.has(value)) fail(report, node, 'enum', { allowedValues: allowed });
    });
  }
  addStringChecks(schema, checks, fail);
  addNumberChecks(schema, checks, fail);
  addArrayChecks(schema, checks, fail, compile);
  addObjectChecks(schema, checks, fail, compile);
  // One closure per count: most definitions have one or two checks, and a loop over them per value
  // costs more than the checks. Each leaves out what `isDeferred` says (inline: a call per value costs too).
  const [first, second] = checks;
  if (!first) return () => {};
  if (!second) {
    return (node, depth, report) => {
      if (node.kind !== 'alias' && !node.tag?.startsWith('!') && depth <= MAX_DEPTH) first(node, depth, report);
    };
  }
  if (checks.length === 2) {
    return (node, depth, report) => {
      if (node.kind === 'alias' || node.tag?.startsWith('!') || depth > MAX_DEPTH) return;
      first(node, depth, report);
      second(node, depth, report);
    };
  }
  return (node, depth, report) => {
    if (node.kind === 'alias' || node.tag?.startsWith('!') || depth > MAX_DEPTH) return;
    for (let i = 0; i < checks.length; i++) checks[i]!(node, depth, report);
  };
}

type Fail = (report: Report, node: BNode, keyword: string, params: Record<string, unknown>) => void;

function addStringChecks(schema: JsonObject, checks: Check[], fail: Fail): void {
  const stringOf = (node: BNode): string | undefined =>
    node.kind === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
  const { minLength, maxLength, pattern, format } = schema;
  if (typeof minLength === 'number' || typeof maxLength === 'number') {
    checks.push((node, _depth, report) => {
      const value = stringOf(node);
      if (value === undefined) return;
      const length = value.length > 0 && /[\ud800-\udfff]/.test(value) ? codePoints(value) : value.length;
      if (typeof minLength === 'number' && length < minLength) fail(report, node, 'minLength', { limit: minLength });
      if (typeof maxLength === 'number' && length > maxLength) fail(report, node, 'maxLength', { limit: maxLength });
    });
  }
  if (typeof pattern === 'string') {
    const expression = new RegExp(pattern, 'u');
    checks.push((node, _depth, report) => {
      const value = stringOf(node);
      if (value !== undefined && !expression.test(value)) fail(report, node, 'pattern', { pattern });
    });
  }
  const formatCheck = typeof format === 'string' ? formatChecks.get(format) : undefined;
  if (formatCheck) {
    checks.push((node, _depth, report) => {
      const value = stringOf(node);
      if (value !== undefined && !formatCheck(value)) fail(report, node, 'format', { format });
    });
  }
}

/**
 * The bounds of a number, made once: compiling the ~1,000 definitions of a schema runs this setup
 * often enough for V8 to optimise it, and a table made per call made that work larger.
 */
const numberLimits: readonly [keyword: string, broken: (value: number, limit: number) => boolean][] = [
  ['minimum', (value, limit) => value < limit],
  ['maximum', (value, limit) => value > limit],
  ['exclusiveMinimum', (value, limit) => value <= limit],
  ['exclusiveMaximum', (value, limit) => value >= limit],
];

function addNumberChecks(schema: JsonObject, checks: Check[], fail: Fail): void {
  for (const [keyword, broken] of numberLimits) {
    const limit = schema[keyword];
    if (typeof limit !== 'number') continue;
    checks.push((node, _depth, report) => {
      if (node.kind === 'scalar' && typeof node.value === 'number' && broken(node.value, limit)) {
        fail(report, node, keyword, { comparison: '', limit });
      }
    });
  }
}

function addArrayChecks(schema: JsonObject, checks: Check[], fail: Fail, compile: (schema: unknown) => Check): void {
  const { items, minItems, maxItems } = schema;
  if (Array.isArray(items)) throw new UnsupportedSchema('items');
  const itemCheck = items === undefined ? undefined : compile(items);
  // Without any of the three it would check nothing: no call for it on every value.
  if (!itemCheck && typeof minItems !== 'number' && typeof maxItems !== 'number') return;
  checks.push((node, depth, report) => {
    if (node.kind !== 'seq') return;
    const count = node.items.length;
    if (typeof minItems === 'number' && count < minItems) fail(report, node, 'minItems', { limit: minItems });
    if (typeof maxItems === 'number' && count > maxItems) fail(report, node, 'maxItems', { limit: maxItems });
    if (!itemCheck) return;
    for (let i = 0; i < count; i++) {
      const item = node.items[i]!;
      const before = report.errors.length;
      report.path.push(i);
      itemCheck(item, depth + 1, report);
      if (report.errors.length > before) noteOrigin(report, { node: item });
      report.path.pop();
    }
  });
}

function addObjectChecks(schema: JsonObject, checks: Check[], fail: Fail, compile: (schema: unknown) => Check): void {
  const properties =
    schema.properties && typeof schema.properties === 'object' ? (schema.properties as JsonObject) : {};
  const propertyChecks = new Map(Object.entries(properties).map(([name, property]) => [name, compile(property)]));
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const additional = schema.additionalProperties;
  const additionalCheck = additional && typeof additional === 'object' ? compile(additional) : undefined;
  if (propertyChecks.size === 0 && required.length === 0 && additional === undefined) return;
  checks.push((node, depth, report) => {
    if (node.kind !== 'map') return;
    const entries = node.entries;
    for (let r = 0; r < required.length; r++) {
      const name = required[r]!;
      if (!laterHas(entries, -1, name)) fail(report, node, 'required', { missingProperty: name });
    }
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const key = entry.key;
      const value = entry.value;
      const name = fieldName(key);
      // The last of repeated keys wins, as in the loaded data.
      if (name === undefined || laterHas(entries, i, name)) continue;
      const own = propertyChecks.get(name);
      if (own === undefined && additional === false) {
        fail(report, node, 'additionalProperties', { additionalProperty: name });
        report.path.push(name);
        report.origins!.set(pointerOf(report.path), { node: value, key });
        report.path.pop();
        continue;
      }
      const check = own ?? additionalCheck;
      if (!check) continue;
      const before = report.errors.length;
      report.path.push(name);
      check(value, depth + 1, report);
      // The key is the better place for a property's error: it replaces what the value's checks noted.
      if (report.errors.length > before) report.origins!.set(pointerOf(report.path), { node: value, key });
      report.path.pop();
    }
  });
}

/** A mapping key as a field name; tagged keys are resolved at apply time and are not checked. */
function fieldName(key: BNode): string | undefined {
  if (key.kind !== 'scalar' || (key.tag !== undefined && key.tag.startsWith('!'))) return undefined;
  const value = key.value;
  return typeof value === 'string' ? value : String(value);
}

/** Whether an entry after `index` (any entry, from -1) has the field `name`. */
function laterHas(entries: readonly { key: BNode }[], index: number, name: string): boolean {
  // `fieldName(key) === name`, written out: every key of a mapping is compared with every later one.
  for (let i = index + 1; i < entries.length; i++) {
    const key = entries[i]!.key;
    if (key.kind !== 'scalar') continue;
    const value = key.value;
    if ((typeof value === 'string' ? value === name : String(value) === name) && !key.tag?.startsWith('!')) return true;
  }
  return false;
}

// ---- Ajv, for definitions outside the implemented keywords ----

/**
 * One definition with only the definitions it refers to (transitively), kept at their places, so
 * Ajv compiles that model alone: never the whole schema or its entry `oneOf`.
 */
function standalone(schema: JsonObject, definition: JsonObject): JsonObject {
  const result: JsonObject = {};
  const seen = new Set<string>();
  const pending: unknown[] = [definition];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    if (!node || typeof node !== 'object' || Array.isArray(node)) continue;
    const object = node as JsonObject;
    if (typeof object.$ref === 'string' && object.$ref.startsWith('#/') && !seen.has(object.$ref)) {
      seen.add(object.$ref);
      const target = resolvePointer(schema, object.$ref);
      if (target) {
        const parts = object.$ref
          .slice(2)
          .split('/')
          .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
        let place = result;
        for (const part of parts.slice(0, -1)) place = (place[part] ??= {}) as JsonObject;
        place[parts[parts.length - 1]!] = target;
        pending.push(target);
      }
    }
    for (const value of Object.values(object)) if (value !== null && typeof value === 'object') pending.push(value);
  }
  return { ...result, ...definition };
}

/**
 * The same checks by Ajv, on a plain copy of the data in which every tagged node is a null marker:
 * for definitions outside the implemented keywords (and to compare the two in tests).
 */
export function compileAjvFieldValidator(definition: JsonObject, root: JsonObject, ajv: Ajv): FieldValidator {
  const validate = ajv.compile(standalone(root, definition));
  return (node) => {
    const origins = new Map<string, Origin>();
    const markers: string[] = [];
    const data = plainData(node, '', 0, origins, markers);
    if (validate(data)) return undefined;
    const errors = (validate.errors ?? []).filter(
      (error) =>
        !markers.some((marker) => error.instancePath === marker || error.instancePath.startsWith(`${marker}/`)),
    );
    return errors.length > 0 ? { errors, origins } : undefined;
  };
}

function plainData(node: BNode, pointer: string, depth: number, origins: Map<string, Origin>, markers: string[], key?: BNode): unknown {
  origins.set(pointer, key ? { node, key } : { node });
  if (isDeferred(node) || depth > MAX_DEPTH) return (markers.push(pointer), null);
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map((item, i) => plainData(item, `${pointer}/${i}`, depth + 1, origins, markers));
  if (node.kind !== 'map') return null;
  const result: JsonObject = {};
  for (const entry of node.entries) {
    if (entry.key.kind !== 'scalar' || entry.key.tag?.startsWith('!')) continue;
    const name = String(entry.key.value);
    result[name] = plainData(entry.value, `${pointer}/${escapePointer(name)}`, depth + 1, origins, markers, entry.key);
  }
  return result;
} // prettier-ignore
