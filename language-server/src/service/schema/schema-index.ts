import { Ajv } from 'ajv';
import { editDistance, lowercaseOf } from '../../../../common/spelling.ts';
import { compileFieldValidator, formatPlugin, type FieldValidator } from './field-validator.ts';
import { resolvePointer } from './json-pointer.ts';

/**
 * What the validator needs to know about a blueprint schema, read ONLY from its structure: the
 * entry `oneOf` branches, their `model` consts and their `$ref`s. No model or field name is
 * written here, so another release's schema works the same way.
 */

export type JsonObject = Record<string, unknown>;

export interface ModelInfo {
  /** The `model` const of the entry branch, e.g. `<app>.<model>`. */
  name: string;
  /** The part before the first `.` of the name. */
  app: string;
  /** The entry branch (a `oneOf` item, resolved). */
  entry: JsonObject;
  /** Keys an entry of this model may have. */
  entryKeys: string[];
  stateValues: string[];
  /** The definition shared by `attrs` and `identifiers` (resolved `$ref`), if any. */
  fields: JsonObject | undefined;
  /** The `$ref` that `attrs`/`identifiers` use for `fields`, if any. */
  fieldsRef: string | undefined;
  fieldNames: string[];
  permissionCodenames: string[];
  /** The schema of one `permissions` item. */
  permissionItem: JsonObject | undefined;
  identifiersRequired: boolean;
}

export type ModelLookup = { model: ModelInfo; caseMismatch: boolean } | { model: undefined; suggestions: string[] };

export interface SchemaIndex {
  title: string | undefined;
  /** The top-level schema itself (`properties`, `required`). */
  root: JsonObject;
  topLevelKeys: string[];
  /** Union of the keys of every entry branch. */
  entryKeys: string[];
  stateValues: string[];
  models: ReadonlyMap<string, ModelInfo>;
  modelNames: string[];
  lookupModel(name: string): ModelLookup;
  /** The validator of a model's fields, compiled on first use and cached. */
  fieldValidator(model: ModelInfo): FieldValidator | undefined;
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Follows `$ref`s (a few hops) to the definition. */
function deref(schema: JsonObject, node: unknown): { definition: JsonObject | undefined; ref: string | undefined } {
  let current = isObject(node) ? node : undefined;
  let ref: string | undefined;
  for (let hop = 0; hop < 8 && current && typeof current.$ref === 'string'; hop++) {
    ref = current.$ref as string;
    current = resolvePointer(schema, ref);
  }
  return { definition: current, ref };
}

/** Finds the entry `oneOf`: the items schema of `entries` (array form), resolved. */
function entryBranches(schema: JsonObject): unknown[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const found: unknown[] = [];
  const visit = (node: unknown, depth: number): void => {
    const { definition } = deref(schema, node);
    if (!definition || depth > 6) return;
    if (Array.isArray(definition.oneOf)) {
      const branches = definition.oneOf.map((branch) => deref(schema, branch).definition);
      if (branches.some((branch) => isObject(branch?.properties) && isObject(branch.properties.model))) {
        found.push(...branches);
        return;
      }
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      if (Array.isArray(definition[key])) for (const item of definition[key]) visit(item, depth + 1);
    }
    if (definition.items) visit(definition.items, depth + 1);
    if (isObject(definition.additionalProperties)) visit(definition.additionalProperties, depth + 1);
  };
  visit(properties.entries, 0);
  return found;
}

function modelInfo(schema: JsonObject, entry: JsonObject): ModelInfo | undefined {
  const properties = isObject(entry.properties) ? entry.properties : {};
  const modelSchema = isObject(properties.model) ? properties.model : {};
  const name = typeof modelSchema.const === 'string' ? modelSchema.const : strings(modelSchema.enum)[0];
  if (name === undefined) return undefined;
  const fieldsSource = properties.attrs ?? properties.identifiers;
  const { definition: fields, ref: fieldsRef } = deref(schema, fieldsSource);
  const state = deref(schema, properties.state).definition;
  const permissions = deref(schema, properties.permissions).definition;
  const permissionItem = deref(schema, permissions?.items).definition;
  const permissionProps = isObject(permissionItem?.properties) ? permissionItem.properties : {};
  const permission = deref(schema, permissionProps.permission).definition;
  return {
    name,
    app: name.split('.')[0]!,
    entry,
    entryKeys: Object.keys(properties),
    stateValues: strings(state?.enum),
    fields,
    fieldsRef,
    fieldNames: isObject(fields?.properties) ? Object.keys(fields.properties) : [],
    permissionCodenames: strings(permission?.enum),
    permissionItem,
    identifiersRequired: strings(entry.required).includes('identifiers'),
  };
}

/** Up to `count` names nearest to `word` (ignoring case), nearest first; none when nothing is near. */
export function nearest(word: string, candidates: readonly string[], count = 3): string[] {
  const lower = word.toLowerCase();
  const limit = Math.max(2, Math.floor(word.length / 4));
  const lowerCandidates = lowercaseOf(candidates);
  const near: { candidate: string; distance: number }[] = [];
  let best = limit;
  for (let i = 0; i < candidates.length; i++) {
    // Only names about as near as the nearest one are given (a far second guess is noise): a
    // name is measured only as far as one more than the nearest so far.
    const within = Math.min(limit, best + 1);
    const distance = editDistance(lower, lowerCandidates[i]!, within);
    if (distance > within) continue;
    near.push({ candidate: candidates[i]!, distance });
    if (distance < best) best = distance;
  }
  return near
    .filter(({ distance }) => distance <= best + 1)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

/**
 * Where `written` differs from `model`'s name only in case: the part the service matches exactly,
 * so that it finds no model, or undefined when the difference is folded. The service lowercases
 * only the model part of a name; it matches the app label exactly, and the whole name of the
 * model without identifiers (no database model: it applies another blueprint).
 */
export function caseSensitivePart(written: string, model: ModelInfo): 'app label' | 'model name' | undefined {
  if (written.split('.')[0] !== model.app) return 'app label';
  return model.entryKeys.includes('identifiers') ? undefined : 'model name';
}

export function createSchemaIndex(schema: object): SchemaIndex {
  const root = schema as JsonObject;
  const models = new Map<string, ModelInfo>();
  for (const branch of entryBranches(root)) {
    const info = isObject(branch) ? modelInfo(root, branch) : undefined;
    if (info && !models.has(info.name)) models.set(info.name, info);
  }
  const modelNames = [...models.keys()];
  // The lookup of a name written exactly is made for every entry by several checks: one answer per model, made once.
  const exactly = new Map([...models].map(([name, model]) => [name, { model, caseMismatch: false }]));
  const byLower = new Map(modelNames.map((name) => [name.toLowerCase(), models.get(name)!]));
  const entryKeys = [...new Set([...models.values()].flatMap((model) => model.entryKeys))];
  const stateValues = [...new Set([...models.values()].flatMap((model) => model.stateValues))];

  // Ajv is only created for a definition that uses keywords the field validator does not implement.
  let ajv: Ajv | undefined;
  const getAjv = (): Ajv => {
    if (ajv) return ajv;
    const formats = formatPlugin();
    // Code optimisation halves the compile time of a model's validator and changes no result.
    const validateFormats = formats !== undefined;
    ajv = new Ajv({
      allErrors: true,
      strict: false,
      validateSchema: false,
      validateFormats,
      code: { optimize: false },
    });
    if (formats) formats(ajv, undefined);
    return ajv;
  };
  const validators = new Map<string, FieldValidator | undefined>();
  return {
    title: typeof root.title === 'string' ? root.title : undefined,
    root,
    topLevelKeys: isObject(root.properties) ? Object.keys(root.properties) : [],
    entryKeys,
    stateValues,
    models,
    modelNames,
    lookupModel(name) {
      const exact = exactly.get(name);
      if (exact) return exact;
      const folded = byLower.get(name.toLowerCase());
      if (folded) return { model: folded, caseMismatch: true };
      return { model: undefined, suggestions: nearest(name, modelNames) };
    },
    fieldValidator(model) {
      // One lookup for a model seen before (its validator is kept even when undefined).
      const known = validators.get(model.name);
      if (known !== undefined || validators.has(model.name)) return known;
      let validate: FieldValidator | undefined;
      try {
        if (model.fields) validate = compileFieldValidator(model.fields, root, getAjv);
      } catch {
        validate = undefined;
      }
      validators.set(model.name, validate);
      return validate;
    },
  };
}
