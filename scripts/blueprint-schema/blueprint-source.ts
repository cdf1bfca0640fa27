import path from 'node:path';
import { readYamlFile } from './read-yaml.ts';

/**
 * The schema source (schemas/source/*.yaml) read and checked for shape. Field notations are
 * expanded later, by the builder, which knows the model and field each one belongs to.
 */
export interface BlueprintSource {
  /** Release label, e.g. `2025.12`. */
  release: string;
  /** Descriptions of the top-level keys, by path (`metadata.labels`). */
  document: Record<DocumentKey, string>;
  /** Descriptions of the keys of every entry, by path (`permissions.role`). */
  entry: Record<EntryKey, string>;
  /** The values of `state` in schema order, each with its meaning, and the default. */
  states: { default: string; values: Array<[value: string, meaning: string]> };
  /** Descriptions of common fields by name (field-descriptions.yaml). */
  fieldDescriptions: Map<string, string>;
  /** Named value lists for `enum @name` (value-lists.yaml). */
  valueLists: Map<string, string[]>;
  /** The models in release order (models.yaml). */
  models: ModelSource[];
  /** Which models the uuid fields refer to (references.yaml), patterns not yet expanded. */
  references: ReferenceSource;
  /** Where the service accepts more than the release's schema (service-fields.yaml). */
  serviceFields: ServiceFieldsSource;
  /** Value rules of the service's validators, by name (field-rules.yaml), patterns expanded. */
  fieldRules: Map<string, FieldRule>;
  /** Rules of the serializers that tie fields of one entry together (cross-field-rules.yaml). */
  crossFieldRules: CrossFieldRule[];
}

/** The checks a cross-field rule may make, each over a list of fields. */
export const CROSS_FIELD_CHECKS = ['exactly_one_of', 'at_least_one_of', 'requires', 'requires_keys', 'regex'] as const;
export type CrossFieldCheck = (typeof CROSS_FIELD_CHECKS)[number];

/** One row of cross-field-rules.yaml, shape-checked; its fields are checked against the model by the builder. */
export interface CrossFieldRule {
  model: string;
  /** A list field of mappings: the rule holds in each of its items, whose fields it names. */
  each?: string;
  /** Field -> the values (as written in the entry) for which the rule applies. */
  when?: Record<string, Array<string | number | boolean>>;
  /** Field -> the value the service assumes when the entry leaves the field out. */
  defaults?: Record<string, string | number | boolean>;
  /** The rule applies only when this field is set. */
  whenSet?: string;
  /** The rule does not apply when one of these is set. */
  unlessSet?: string[];
  check: CrossFieldCheck;
  fields: string[];
  message: string;
  /** Where the service checks it. */
  service: string;
}

/** One rule of field-rules.yaml: what `rule <name>` in a field notation adds to the field. */
export interface FieldRule {
  name: string;
  /** Completes "<field> must be ...". */
  says: string;
  /** A value that keeps the rule. */
  example: string;
  /** The regular expression, unanchored, with its parts filled in. */
  pattern: string;
}

/**
 * service-fields.yaml: fields the generator widens beyond the release's schema, each with the
 * reason (a key of `reasons`). Models and fields are checked against models.yaml by the builder.
 */
export interface ServiceFieldsSource {
  /** Reason key -> what the service does that makes the deviation right. */
  reasons: Map<string, string>;
  /** Model -> field -> reason: the field also accepts null. */
  nullable: Map<string, Map<string, string>>;
  /** Model -> field -> reason: a string enum of numbers also accepts the numbers. */
  stringChoices: Map<string, Map<string, string>>;
}

/**
 * references.yaml as written. A model list holds names and patterns (`*` matches any characters);
 * the builder expands them and checks the fields against the models.
 */
export interface ReferenceSource {
  /** Field name or pattern -> model list, for that field wherever it is a uuid field. */
  fields: Map<string, string[]>;
  /** Model -> field -> model list, in place of what `fields` gives for that model's field. */
  models: Map<string, Map<string, string[]>>;
}

/** One model of models.yaml, its fields still in notation. */
export interface ModelSource {
  /** `<app>.<model>`, e.g. `idp_core.user`. */
  name: string;
  summary: string;
  /** True only for the model whose entries have no `identifiers` key. */
  withoutIdentifiers: boolean;
  /** `standard`, or a list of codenames where `standard` may stand for the four standard ones. */
  permissions: string[];
  /** Field name -> notation string or mapping form, in source order. */
  fields: Array<[name: string, spec: unknown]>;
}

export const DOCUMENT_KEYS = [
  'version',
  'metadata',
  'metadata.name',
  'metadata.labels',
  'context',
  'entries',
  'entries.list',
  'entries.groups',
] as const;
export type DocumentKey = (typeof DOCUMENT_KEYS)[number];

export const ENTRY_KEYS = [
  'model',
  'id',
  'state',
  'conditions',
  'permissions',
  'permissions.permission',
  'permissions.user',
  'permissions.role',
  'attrs',
  'identifiers',
] as const;
export type EntryKey = (typeof ENTRY_KEYS)[number];

/** A source file with the wrong shape or a bad notation: names the file and the place in it. */
export class SourceError extends Error {
  override name = 'SourceError';
  constructor(file: string, where: string, problem: string) {
    super(`${file}: ${where}: ${problem}`);
  }
}

const MODEL_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;
const MODEL_KEYS = new Set(['summary', 'without_identifiers', 'permissions', 'fields']);
const FIELD_NAME = /^[a-z][a-z0-9_]*$/;
/** A field name where `*` may stand for any characters. */
const FIELD_PATTERN = /^[a-z0-9_*]+$/;
/** A model name where `*` may stand for any characters. */
const MODEL_PATTERN = /^[a-z0-9_.*]+$/;
/** The file that says which models the uuid fields refer to. */
export const REFERENCES_FILE = 'references.yaml';
/** The file of fields the service accepts more of than the release's schema says. */
export const SERVICE_FIELDS_FILE = 'service-fields.yaml';
/** The file of value rules that the service's validators apply to single fields. */
export const FIELD_RULES_FILE = 'field-rules.yaml';
/** The file of the serializers' rules across the fields of one entry. */
export const CROSS_FIELD_RULES_FILE = 'cross-field-rules.yaml';

/** Reads and shape-checks the five source files in `directory`. */
export function loadBlueprintSource(directory: string): BlueprintSource {
  const blueprint = mapping(readYamlFile(path.join(directory, 'blueprint.yaml')), 'blueprint.yaml', '(top)');
  const states = mapping(blueprint.states, 'blueprint.yaml', 'states');
  const stateValues = textMapping(states.values, 'blueprint.yaml', 'states.values');
  const defaultState = text(states.default, 'blueprint.yaml', 'states.default');
  if (!stateValues.has(defaultState)) {
    throw new SourceError('blueprint.yaml', 'states.default', `"${defaultState}" is not one of states.values`);
  }
  return {
    release: text(blueprint.release, 'blueprint.yaml', 'release'),
    document: exactKeys(blueprint.document, DOCUMENT_KEYS, 'document'),
    entry: exactKeys(blueprint.entry, ENTRY_KEYS, 'entry'),
    states: { default: defaultState, values: [...stateValues] },
    fieldDescriptions: textMapping(
      readYamlFile(path.join(directory, 'field-descriptions.yaml')),
      'field-descriptions.yaml',
      '(top)',
    ),
    valueLists: readValueLists(readYamlFile(path.join(directory, 'value-lists.yaml'))),
    models: readModels(readYamlFile(path.join(directory, 'models.yaml'))),
    references: readReferences(readYamlFile(path.join(directory, REFERENCES_FILE))),
    serviceFields: readServiceFields(readYamlFile(path.join(directory, SERVICE_FIELDS_FILE))),
    fieldRules: readFieldRules(readYamlFile(path.join(directory, FIELD_RULES_FILE))),
    crossFieldRules: readCrossFieldRules(readYamlFile(path.join(directory, CROSS_FIELD_RULES_FILE))),
  };
}

const CROSS_FIELD_KEYS = new Set(['model', 'each', 'when', 'defaults', 'when_set', 'unless_set', 'message', 'service', ...CROSS_FIELD_CHECKS]); // prettier-ignore

function readCrossFieldRules(data: unknown): CrossFieldRule[] {
  const file = CROSS_FIELD_RULES_FILE;
  if (!Array.isArray(data)) throw new SourceError(file, '(top)', 'expected a list of rules');
  return data.map((item, index) => {
    const where = `[${index}]`;
    const row = mapping(item, file, where);
    const unknown = Object.keys(row).find((key) => !CROSS_FIELD_KEYS.has(key));
    if (unknown) throw new SourceError(file, `${where}.${unknown}`, `unknown key (known: ${[...CROSS_FIELD_KEYS]})`);
    const model = text(row.model, file, `${where}.model`);
    if (!MODEL_NAME.test(model)) throw new SourceError(file, `${where}.model`, 'a model is named <app>.<model>');
    const checks = CROSS_FIELD_CHECKS.filter((check) => check in row);
    if (checks.length !== 1) {
      throw new SourceError(file, `${model}${where}`, `give exactly one of ${CROSS_FIELD_CHECKS.join(', ')}`);
    }
    const check = checks[0]!;
    const names = (value: unknown, key: string): string[] => {
      if (!Array.isArray(value) || value.length === 0 || value.some((name) => typeof name !== 'string' || !FIELD_NAME.test(name))) {
        throw new SourceError(file, `${model}${where}.${key}`, 'expected a non-empty list of field names');
      }
      return value as string[];
    }; // prettier-ignore
    const scalars = (value: unknown, key: string, many: boolean) => {
      const result: Record<string, unknown> = {};
      for (const [field, given] of Object.entries(mapping(value, file, `${model}${where}.${key}`))) {
        const values = many && Array.isArray(given) ? given : [given];
        if (values.length === 0 || values.some((each) => !['string', 'number', 'boolean'].includes(typeof each))) {
          throw new SourceError(file, `${model}${where}.${key}.${field}`, 'expected a string, number or boolean');
        }
        result[field] = many ? values : values[0];
      }
      return result;
    };
    const rule: CrossFieldRule = {
      model,
      check,
      fields: names(row[check], check),
      message: text(row.message, file, `${model}${where}.message`),
      service: text(row.service, file, `${model}${where}.service`),
    };
    if (row.each !== undefined) rule.each = text(row.each, file, `${model}${where}.each`);
    if (row.when !== undefined) rule.when = scalars(row.when, 'when', true) as CrossFieldRule['when'];
    if (row.defaults !== undefined) rule.defaults = scalars(row.defaults, 'defaults', false) as CrossFieldRule['defaults'];
    if (row.when_set !== undefined) rule.whenSet = text(row.when_set, file, `${model}${where}.when_set`);
    if (row.unless_set !== undefined) rule.unlessSet = names(row.unless_set, 'unless_set');
    return rule;
  });
} // prettier-ignore

const RULE_KEYS = new Set(['says', 'example', 'wrong', 'service', 'parts', 'pattern']);
/** `{name}` in a pattern or part: an earlier part (regular-expression counts such as `{2}` are left alone). */
const PART_REFERENCE = /\{([a-z][a-z0-9-]*)\}/g;

function readFieldRules(data: unknown): Map<string, FieldRule> {
  const file = FIELD_RULES_FILE;
  const rules = new Map<string, FieldRule>();
  for (const [name, value] of Object.entries(mapping(data, file, '(top)'))) {
    const rule = mapping(value, file, name);
    const unknown = Object.keys(rule).find((key) => !RULE_KEYS.has(key));
    if (unknown) throw new SourceError(file, `${name}.${unknown}`, `unknown key (known: ${[...RULE_KEYS]})`);
    text(rule.service, file, `${name}.service`);
    const parts = new Map<string, string>();
    const fill = (written: string, where: string): string =>
      written.replace(PART_REFERENCE, (_match, part: string) => {
        const filled = parts.get(part);
        if (filled === undefined) throw new SourceError(file, where, `{${part}} is no earlier part`);
        return `(?:${filled})`;
      });
    for (const [part, spec] of Object.entries(mapping(rule.parts ?? {}, file, `${name}.parts`))) {
      const where = `${name}.parts.${part}`;
      parts.set(part, typeof spec === 'string' ? fill(spec, where) : anyCase(spec, where));
    }
    const pattern = fill(text(rule.pattern, file, `${name}.pattern`), `${name}.pattern`);
    let expression: RegExp;
    try {
      expression = new RegExp(`^(?:${pattern})$`, 'u');
    } catch (error) {
      throw new SourceError(file, `${name}.pattern`, `invalid: ${(error as Error).message}`);
    }
    const example = text(rule.example, file, `${name}.example`);
    if (!expression.test(example)) throw new SourceError(file, `${name}.example`, 'does not match the pattern');
    const wrong = Array.isArray(rule.wrong) ? rule.wrong : [];
    wrong.forEach((value, index) => {
      if (expression.test(text(value, file, `${name}.wrong[${index}]`, true))) {
        throw new SourceError(file, `${name}.wrong[${index}]`, `${JSON.stringify(value)} matches the pattern`);
      }
    });
    rules.set(name, { name, says: text(rule.says, file, `${name}.says`), example, pattern });
  }
  return rules;
}

/** `{words: [...]}`: the words in any case, as an alternation of character classes. */
function anyCase(spec: unknown, where: string): string {
  const words = mapping(spec, FIELD_RULES_FILE, where).words;
  if (!Array.isArray(words) || words.length === 0 || words.some((word) => typeof word !== 'string' || !/^[a-z]+$/.test(word))) {
    throw new SourceError(FIELD_RULES_FILE, where, 'expected a regular expression, or {words: [...]} of lowercase words');
  }
  const classes = (word: string) => [...word].map((letter) => `[${letter}${letter.toUpperCase()}]`).join('');
  return (words as string[]).map(classes).join('|');
} // prettier-ignore

function readServiceFields(data: unknown): ServiceFieldsSource {
  const file = SERVICE_FIELDS_FILE;
  const top = mapping(data, file, '(top)');
  const known = ['reasons', 'nullable', 'string_choices'];
  const unknown = Object.keys(top).find((key) => !known.includes(key));
  if (unknown) throw new SourceError(file, unknown, `unknown key (known: ${known})`);
  const reasons = textMapping(top.reasons, file, 'reasons');
  const byModel = (key: string): Map<string, Map<string, string>> => {
    const models = new Map<string, Map<string, string>>();
    for (const [model, fields] of Object.entries(mapping(top[key] ?? {}, file, key))) {
      if (!MODEL_NAME.test(model)) throw new SourceError(file, `${key}.${model}`, 'a model is named <app>.<model>');
      const reasonOf = textMapping(fields, file, `${key}.${model}`);
      for (const [field, reason] of reasonOf) {
        if (!reasons.has(reason)) {
          throw new SourceError(file, `${key}.${model}.${field}`, `unknown reason "${reason}" (known: ${[...reasons.keys()]})`); // prettier-ignore
        }
      }
      models.set(model, reasonOf);
    }
    return models;
  };
  return { reasons, nullable: byModel('nullable'), stringChoices: byModel('string_choices') };
}

function readValueLists(data: unknown): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const [name, values] of Object.entries(mapping(data, 'value-lists.yaml', '(top)'))) {
    if (!Array.isArray(values) || values.length === 0) {
      throw new SourceError('value-lists.yaml', name, 'expected a non-empty list of strings');
    }
    const strings = values.map((value, index) => text(value, 'value-lists.yaml', `${name}[${index}]`, true));
    const duplicate = strings.find((value, index) => strings.indexOf(value) !== index);
    if (duplicate !== undefined) throw new SourceError('value-lists.yaml', name, `"${duplicate}" is listed twice`);
    lists.set(name, strings);
  }
  return lists;
}

function readModels(data: unknown): ModelSource[] {
  return Object.entries(mapping(data, 'models.yaml', '(top)')).map(([name, value]) => {
    if (!MODEL_NAME.test(name)) throw new SourceError('models.yaml', name, 'a model is named <app>.<model>');
    const model = mapping(value, 'models.yaml', name);
    const unknown = Object.keys(model).find((key) => !MODEL_KEYS.has(key));
    if (unknown) throw new SourceError('models.yaml', `${name}.${unknown}`, `unknown key (known: ${[...MODEL_KEYS]})`);
    const withoutIdentifiers = model.without_identifiers ?? false;
    if (typeof withoutIdentifiers !== 'boolean') {
      throw new SourceError('models.yaml', `${name}.without_identifiers`, 'expected true or false');
    }
    const permissions = model.permissions;
    const list = typeof permissions === 'string' ? [permissions] : permissions;
    if (!Array.isArray(list) || list.length === 0) {
      throw new SourceError('models.yaml', `${name}.permissions`, 'expected "standard" or a list of codenames');
    }
    return {
      name,
      summary: text(model.summary, 'models.yaml', `${name}.summary`),
      withoutIdentifiers,
      permissions: list.map((codename, index) => text(codename, 'models.yaml', `${name}.permissions[${index}]`)),
      fields: Object.entries(mapping(model.fields, 'models.yaml', `${name}.fields`)),
    };
  });
}

function readReferences(data: unknown): ReferenceSource {
  const top = mapping(data, REFERENCES_FILE, '(top)');
  const unknown = Object.keys(top).find((key) => key !== 'fields' && key !== 'models');
  if (unknown) throw new SourceError(REFERENCES_FILE, unknown, 'unknown key (known: fields,models)');
  const fieldLists = (value: unknown, where: string, names: RegExp, what: string): Map<string, string[]> => {
    const lists = new Map<string, string[]>();
    for (const [field, models] of Object.entries(mapping(value ?? {}, REFERENCES_FILE, where))) {
      const place = `${where}.${field}`;
      if (!names.test(field)) throw new SourceError(REFERENCES_FILE, place, `expected ${what}`);
      lists.set(field, modelList(models, place));
    }
    return lists;
  };
  const models = new Map<string, Map<string, string[]>>();
  for (const [model, fields] of Object.entries(mapping(top.models ?? {}, REFERENCES_FILE, 'models'))) {
    if (!MODEL_NAME.test(model)) {
      throw new SourceError(REFERENCES_FILE, `models.${model}`, 'a model is named <app>.<model>');
    }
    models.set(model, fieldLists(fields, `models.${model}`, FIELD_NAME, 'a field name'));
  }
  return { fields: fieldLists(top.fields, 'fields', FIELD_PATTERN, 'a field name or pattern'), models };
}

/** A non-empty list of model names and patterns, each once. */
function modelList(data: unknown, where: string): string[] {
  if (!Array.isArray(data) || data.length === 0) {
    throw new SourceError(REFERENCES_FILE, where, 'expected a non-empty list of model names or patterns');
  }
  const models = data.map((model, index) => text(model, REFERENCES_FILE, `${where}[${index}]`));
  models.forEach((model, index) => {
    if (!MODEL_PATTERN.test(model)) {
      throw new SourceError(REFERENCES_FILE, `${where}[${index}]`, `"${model}" is not a model name or pattern`);
    }
    if (models.indexOf(model) !== index) throw new SourceError(REFERENCES_FILE, where, `"${model}" is listed twice`);
  });
  return models;
}

function exactKeys<K extends string>(data: unknown, keys: readonly K[], where: string): Record<K, string> {
  const descriptions = textMapping(data, 'blueprint.yaml', where);
  const missing = keys.filter((key) => !descriptions.has(key));
  const unknown = [...descriptions.keys()].filter((key) => !(keys as readonly string[]).includes(key));
  if (missing.length > 0 || unknown.length > 0) {
    const problems = [missing.length ? `missing ${missing}` : '', unknown.length ? `unknown ${unknown}` : ''];
    throw new SourceError('blueprint.yaml', where, problems.filter(Boolean).join('; '));
  }
  return Object.fromEntries(descriptions) as Record<K, string>;
}

function textMapping(data: unknown, file: string, where: string): Map<string, string> {
  const entries = Object.entries(mapping(data, file, where));
  return new Map(entries.map(([key, value]) => [key, text(value, file, where === '(top)' ? key : `${where}.${key}`)]));
}

/** A YAML mapping as a plain object. */
export function mapping(data: unknown, file: string, where: string): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SourceError(file, where, 'expected a mapping');
  }
  return data as Record<string, unknown>;
}

function text(data: unknown, file: string, where: string, allowEmpty = false): string {
  if (typeof data !== 'string' || (!allowEmpty && data.trim() === '')) {
    throw new SourceError(
      file,
      where,
      `expected ${allowEmpty ? 'a' : 'a non-empty'} string, found ${JSON.stringify(data)}`,
    );
  }
  return data;
}
