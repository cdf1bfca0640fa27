import { crossFieldCodes, problem, type Problem } from '../problem.ts';
import type { BEntry, BNode } from '../reading/blueprint-node.ts';
import { findEntry, isDeferred, keyName } from '../reading/node-queries.ts';
import { caseSensitivePart, isObject, type ModelInfo, type SchemaIndex } from '../schema/schema-index.ts';
import type { Check } from './check.ts';

/** Where the schema lists a model's cross-field rules: on its entry branch. */
const RULES_KEYWORD = 'x-cross-field-rules';
const CHECKS = ['exactly_one_of', 'at_least_one_of', 'requires', 'requires_keys', 'regex'] as const;

/** One cross-field rule as the schema writes it (schemas/source/cross-field-rules.yaml). */
interface CrossFieldRule {
  /** A list field of mappings: the rule holds in each item, and names the item's fields. */
  each: string | undefined;
  when: ReadonlyMap<string, readonly unknown[]>;
  defaults: Readonly<Record<string, unknown>>;
  whenSet: string | undefined;
  unlessSet: readonly string[];
  check: (typeof CHECKS)[number];
  fields: readonly string[];
  message: string;
}

/** A field of the entry as the service reads it: absent, known (set or not), or known only at apply time. */
type Given = { kind: 'absent' } | { kind: 'known'; set: boolean; entry: BEntry } | { kind: 'deferred'; entry: BEntry };

/**
 * The rules of the service's serializers that tie the fields of one entry together (a binding's
 * one subject, a stage's configure action and its stages...). The rules come from the schema, so
 * this check names no model.
 */
export const crossFieldCheck: Check = {
  id: 'cross-field',
  checkEntry(entry, context, problems) {
    if (entry.kind !== 'map') return;
    const modelEntry = findEntry(entry, 'model');
    const model = modelEntry && modelOf(modelEntry.value, context.index);
    const rules = model && rulesOf(model);
    if (!rules || rules.length === 0) return;
    const state = findEntry(entry, 'state')?.value;
    // An entry that deletes its object is not validated by the serializer.
    if (state?.kind === 'scalar' && state.value === 'absent') return;
    const fields = suppliedFields(entry);
    if (!fields) return;
    for (const rule of rules) {
      if (rule.each === undefined) checkRule(rule, fields, modelEntry.value, problems);
      else for (const item of itemsOf(fields.get(rule.each))) checkRule(rule, item.fields, item.node, problems);
    }
  },
};

/** The entry's model as the service finds it, or undefined (the entry check reports why). */
function modelOf(value: BNode, index: SchemaIndex): ModelInfo | undefined {
  if (isDeferred(value) || value.kind !== 'scalar' || typeof value.value !== 'string') return undefined;
  const exact = index.models.get(value.value);
  // Only a name in another case is looked up further: an unknown name would cost its suggestions again.
  if (exact || value.value === value.value.toLowerCase()) return exact;
  const found = index.lookupModel(value.value);
  if (!found.model || (found.caseMismatch && caseSensitivePart(value.value, found.model))) return undefined;
  return found.model;
}

const parsedRules = new WeakMap<ModelInfo, readonly CrossFieldRule[]>();

function rulesOf(model: ModelInfo): readonly CrossFieldRule[] {
  let rules = parsedRules.get(model);
  if (!rules) {
    const written = model.entry[RULES_KEYWORD];
    rules = Array.isArray(written) ? written.filter(isObject).flatMap((row) => parseRule(row) ?? []) : [];
    parsedRules.set(model, rules);
  }
  return rules;
}

const names = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** A rule of the schema, or undefined when it has none of the checks this service knows. */
function parseRule(row: Record<string, unknown>): CrossFieldRule | undefined {
  const check = CHECKS.find((name) => Array.isArray(row[name]));
  if (!check || typeof row.message !== 'string') return undefined;
  const when = new Map<string, unknown[]>();
  if (isObject(row.when)) {
    for (const [field, values] of Object.entries(row.when)) when.set(field, Array.isArray(values) ? values : [values]);
  }
  return {
    each: typeof row.each === 'string' ? row.each : undefined,
    when,
    defaults: isObject(row.defaults) ? row.defaults : {},
    whenSet: typeof row.when_set === 'string' ? row.when_set : undefined,
    unlessSet: names(row.unless_set),
    check,
    fields: names(row[check]),
    message: row.message,
  };
}

/**
 * The fields the entry supplies: its attrs, then its identifiers over them (the service validates
 * their union, identifiers winning). Undefined when either is not a plain mapping: its fields are
 * only known at apply time.
 */
function suppliedFields(entry: BNode & { kind: 'map' }): Map<string, BEntry> | undefined {
  const fields = new Map<string, BEntry>();
  for (const part of ['attrs', 'identifiers']) {
    const value = findEntry(entry, part)?.value;
    if (!value) continue;
    if (value.kind !== 'map' || isDeferred(value)) return undefined;
    for (const field of value.entries) {
      const name = keyName(field);
      if (name !== undefined) fields.set(name, field);
    }
  }
  return fields;
}

/** The mapping items of a list field, each with its fields; none when the list is only known at apply time. */
function itemsOf(list: BEntry | undefined): { node: BNode; fields: Map<string, BEntry> }[] {
  const value = list?.value;
  if (!value || value.kind !== 'seq' || isDeferred(value)) return [];
  const items: { node: BNode; fields: Map<string, BEntry> }[] = [];
  for (const item of value.items) {
    if (item.kind !== 'map' || isDeferred(item)) continue;
    const fields = new Map<string, BEntry>();
    for (const field of item.entries) {
      const name = keyName(field);
      if (name !== undefined) fields.set(name, field);
    }
    items.push({ node: item, fields });
  }
  return items;
}

function given(fields: ReadonlyMap<string, BEntry>, name: string): Given {
  const entry = fields.get(name);
  if (!entry) return { kind: 'absent' };
  const value = entry.value;
  // `!KeyOf` gives a primary key or fails the blueprint: set. Other tags are known only when applied.
  if (value.tag === '!KeyOf') return { kind: 'known', set: true, entry };
  if (isDeferred(value)) return { kind: 'deferred', entry };
  return { kind: 'known', set: isSet(value), entry };
}

/** Python's truth of the value, as the serializers test it. */
function isSet(value: BNode): boolean {
  if (value.kind === 'map') return value.entries.length > 0;
  if (value.kind === 'seq') return value.items.length > 0;
  if (value.kind !== 'scalar') return true;
  return value.value !== null && value.value !== false && value.value !== 0 && value.value !== '';
}

/** Whether the rule applies, and the node its finding goes on when the condition names one. */
function condition(rule: CrossFieldRule, fields: ReadonlyMap<string, BEntry>): { applies: boolean; at?: BNode } {
  let at: BNode | undefined;
  for (const [field, values] of rule.when) {
    const found = given(fields, field);
    if (found.kind === 'deferred') return { applies: false };
    const value = found.kind === 'absent' ? rule.defaults[field] : scalarOf(found.entry.value);
    if (value === undefined || !values.includes(value)) return { applies: false };
    at ??= found.kind === 'known' ? found.entry.value : undefined;
  }
  if (rule.whenSet !== undefined) {
    const found = given(fields, rule.whenSet);
    if (found.kind !== 'known' || !found.set) return { applies: false };
    at ??= found.entry.key;
  }
  for (const field of rule.unlessSet) {
    const found = given(fields, field);
    if (found.kind === 'deferred' || (found.kind === 'known' && found.set)) return { applies: false };
  }
  return { applies: true, at };
}

const scalarOf = (value: BNode): unknown => (value.kind === 'scalar' ? value.value : undefined);

function checkRule(rule: CrossFieldRule, fields: ReadonlyMap<string, BEntry>, model: BNode, problems: Problem[]): void {
  const { applies, at } = condition(rule, fields);
  if (!applies) return;
  const found = rule.fields.map((field) => given(fields, field));
  const report = (node: BNode) =>
    problems.push(problem(crossFieldCodes, 'field-combination', node.range, rule.message));
  const isSetHere = (item: Given) => item.kind === 'known' && item.set;
  const unknown = found.some((item) => item.kind === 'deferred');
  switch (rule.check) {
    case 'exactly_one_of': {
      const set = found.filter(isSetHere);
      // A second subject is the mistake: the finding goes on it.
      if (set.length > 1) report((set[1] as Extract<Given, { kind: 'known' }>).entry.key);
      else if (set.length === 0 && !unknown) report(at ?? model);
      return;
    }
    case 'at_least_one_of':
      if (!found.some(isSetHere) && !unknown) report(at ?? model);
      return;
    case 'requires':
      if (found.some((item) => item.kind === 'absent' || (item.kind === 'known' && !item.set))) report(at ?? model);
      return;
    case 'requires_keys':
      if (found.some((item) => item.kind === 'absent')) report(at ?? model);
      return;
    case 'regex':
      for (const item of found) {
        const value = item.kind === 'known' ? item.entry.value : undefined;
        if (value?.kind === 'scalar' && typeof value.value === 'string' && pythonRegexCompiles(value.value) === false) {
          report(value);
        }
      }
      return;
  }
}

/** Escapes Python's `re` knows; any other backslash and ASCII letter is an error there ("bad escape"). */
const PYTHON_ESCAPE_LETTERS = new Set('abBdDfnrsStvwWZAxuUN');

/**
 * Whether Python's `re` compiles `pattern`, told by translating its own syntax into a JavaScript
 * RegExp: named groups, inline flags, comments, \A and \Z. Undefined where the two differ too much
 * to tell (conditionals, atomic groups, possessive repeats): no finding then.
 */
function pythonRegexCompiles(pattern: string): boolean | undefined {
  if (/\(\?\(|\(\?>|[*+?}]\+/.test(pattern)) return undefined;
  for (const [, letter] of pattern.matchAll(/\\(?:\\|([A-Za-z]))/g)) {
    if (letter !== undefined && !PYTHON_ESCAPE_LETTERS.has(letter)) return false;
  }
  const translated = pattern
    .replace(/^\(\?[aiLmsux]+\)/, '')
    .replace(/\(\?#[^)]*\)/g, '')
    .replace(/\(\?P<(\w+)>/g, '(?<$1>')
    .replace(/\(\?P=(\w+)\)/g, '\\k<$1>')
    .replace(/\(\?[aiLmsux-]+:/g, '(?:')
    .replace(/\\A/g, '^')
    .replace(/\\Z/g, '$');
  try {
    new RegExp(translated);
    return true;
  } catch {
    return false;
  }
}
