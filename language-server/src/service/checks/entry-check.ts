import { problem, schemaCodes, withSuggestions, type Problem } from '../problem.ts';
import type { BEntry, BNode } from '../reading/blueprint-node.ts';
import { findEntry, firstLine, isDeferred, keyName } from '../reading/node-queries.ts';
import { caseSensitivePart, type ModelInfo, type SchemaIndex } from '../schema/schema-index.ts';
import type { Check } from './check.ts';
import { validateFields } from './entry-fields.ts';
import { validatePermissions } from './entry-permissions.ts';
import { suggest } from '../../../../common/spelling.ts';
import { hint } from './suggestions.ts';

const codes = schemaCodes;

/**
 * The schema of one entry, without looking at the others: its keys, its model and that model's
 * fields and permissions. (Its tags are the tag check's; cross-entry rules the reference check's.)
 */
export const entryCheck: Check = {
  id: 'entry',
  checkEntry: (entry, context, problems) => validateEntry(entry, context.index, problems),
};

/**
 * One entry, discriminator first: `model` picks the one branch of the entry `oneOf` that applies,
 * and only that branch is used for the other keys.
 */
function validateEntry(node: BNode, index: SchemaIndex, problems: Problem[]): void {
  if (isDeferred(node)) return;
  if (node.kind !== 'map') {
    const message = 'An entry must be a mapping with at least model (and identifiers).';
    problems.push(problem(codes, 'entry-not-map', node.range, message));
    return;
  }
  const modelEntry = findEntry(node, 'model');
  const modelKnown = modelEntry === undefined || !isDeferred(modelEntry.value);
  const model = modelEntry ? checkModel(modelEntry.value, index, problems) : undefined;
  if (!modelEntry) {
    const message = 'This entry has no model: add model: <app>.<model>.';
    problems.push(problem(codes, 'model-missing', firstLine(node), message));
  }

  const keys = model?.entryKeys ?? index.entryKeys;
  // The entry's other parts are found in the same pass over its keys (as `findEntry` finds them:
  // the last one wins): one loop per entry instead of one per part.
  let state: BEntry | undefined;
  let conditions: BEntry | undefined;
  const parts: ModelParts = { identifiers: undefined, attrs: undefined, permissions: undefined };
  for (let i = 0; i < node.entries.length; i++) {
    const entry = node.entries[i]!;
    const name = keyName(entry);
    if (name === undefined) continue;
    if (name === 'state') state = entry;
    else if (name === 'conditions') conditions = entry;
    else if (name === 'identifiers') parts.identifiers = entry;
    else if (name === 'attrs') parts.attrs = entry;
    else if (name === 'permissions') parts.permissions = entry;
    if (keys.includes(name)) continue;
    const owner = model ? `An entry of ${model.name}` : 'An entry';
    const suggestion = suggest(name, keys);
    const message = `${owner} has no key '${name}'.${hint(suggestion)}`;
    problems.push(
      withSuggestions(problem(codes, 'entry-unknown-key', entry.key.range, message), entry.key.range, [suggestion]),
    );
  }

  if (state && keys.includes('state')) checkState(state.value, model?.stateValues ?? index.stateValues, problems);
  if (conditions && keys.includes('conditions')) checkConditions(conditions.value, problems);

  if (!model || !modelEntry || !modelKnown) return;
  checkModelParts(parts, model, modelEntry, index, problems);
}

/** The keys of an entry that its model's checks read. */
interface ModelParts {
  identifiers: BEntry | undefined;
  attrs: BEntry | undefined;
  permissions: BEntry | undefined;
}

function checkModelParts(
  { identifiers, attrs, permissions }: ModelParts,
  model: ModelInfo,
  modelEntry: BEntry,
  index: SchemaIndex,
  problems: Problem[],
): void {
  // Its range (a new array on each read) only where a finding needs it, not once per entry.
  const hasIdentifiers = model.entryKeys.includes('identifiers');
  if (!identifiers && model.identifiersRequired) {
    const message = `An entry of ${model.name} needs identifiers: the fields that find the existing object.`;
    problems.push(problem(codes, 'identifiers-missing', modelEntry.range, message));
  }
  if (identifiers && hasIdentifiers) {
    const value = identifiers.value;
    if (value.kind === 'map' && !isDeferred(value) && value.entries.length === 0) {
      const message = 'identifiers must not be empty: give at least one field that finds the object.';
      problems.push(problem(codes, 'identifiers-empty', value.range, message));
    } else validateFields('identifiers', value, model, index, problems);
  }
  if (attrs && model.entryKeys.includes('attrs')) validateFields('attrs', attrs.value, model, index, problems);
  if (!hasIdentifiers && !model.identifiersRequired && model.fieldNames.includes('identifiers')) {
    checkAttrsIdentifiers(attrs?.value, model, modelEntry.range, problems);
  }
  if (permissions && model.entryKeys.includes('permissions')) validatePermissions(permissions.value, model, problems);
}

function checkModel(value: BNode, index: SchemaIndex, problems: Problem[]): ModelInfo | undefined {
  if (isDeferred(value)) return undefined;
  if (value.kind !== 'scalar' || typeof value.value !== 'string') {
    const message = 'model must be the name of a model, written <app>.<model>.';
    problems.push(problem(codes, 'model-unknown', value.range, message));
    return undefined;
  }
  const found = index.lookupModel(value.value);
  if (found.model) {
    if (found.caseMismatch) {
      const name = found.model.name;
      const part = caseSensitivePart(value.value, found.model);
      const message = part
        ? `'${value.value}' is not found: the ${part} is case-sensitive. Write ${name}.`
        : `model names are lowercase: ${name}.`;
      const code = part ? 'model-case-strict' : 'model-case';
      problems.push(withSuggestions(problem(codes, code, value.range, message), value.range, [name]));
    }
    return found.model;
  }
  const { suggestions } = found;
  const names = suggestions.map((name) => `'${name}'`).join(suggestions.length === 2 ? ' or ' : ', ');
  const message = `Unknown model '${value.value}'.${suggestions.length === 0 ? '' : ` Did you mean ${names}?`}`;
  problems.push(withSuggestions(problem(codes, 'model-unknown', value.range, message), value.range, suggestions));
  return undefined;
}

function checkState(value: BNode, allowed: readonly string[], problems: Problem[]): void {
  if (isDeferred(value) || allowed.length === 0) return;
  if (value.kind === 'scalar' && typeof value.value === 'string' && allowed.includes(value.value)) return;
  const shown = value.kind === 'scalar' ? String(value.value) : '';
  const suggestion = shown ? suggest(shown, allowed) : undefined;
  const message = `state must be one of: ${allowed.join(', ')}.${hint(suggestion)}`;
  problems.push(withSuggestions(problem(codes, 'state-invalid', value.range, message), value.range, [suggestion]));
}

/**
 * Tags whose value is never something the service can go through item by item: it takes all() of
 * the resolved conditions, so a lone `!Condition` (a boolean) or a primary key fails the entry.
 */
const singleValueTags: Readonly<Record<string, string>> = {
  '!Condition': 'one true or false',
  '!KeyOf': 'one primary key',
  '!Find': 'one primary key (or nothing)',
};

/** The schema says booleans; the service takes any value by truthiness, so literals only warn. */
function checkConditions(value: BNode, problems: Problem[]): void {
  const single = value.tag === undefined ? undefined : singleValueTags[value.tag];
  if (single) {
    const message = `conditions must be a sequence: ${value.tag} gives ${single}, which the service cannot go through item by item. Put it in a list: conditions: [${value.tag} ...].`;
    problems.push(problem(codes, 'conditions-not-sequence', value.range, message));
    return;
  }
  if (isDeferred(value)) return;
  if (value.kind !== 'seq') {
    const message = 'conditions must be a sequence (every item must be true for the entry to apply).';
    problems.push(problem(codes, 'conditions-not-sequence', value.range, message));
    return;
  }
  for (const item of value.items) {
    if (isDeferred(item) || (item.kind === 'scalar' && typeof item.value === 'boolean')) continue;
    const shown = item.kind === 'scalar' ? `'${String(item.value)}'` : 'this value';
    const message = `conditions items should be true or false (or a tag such as !Condition); the service uses the truthiness of ${shown}.`;
    problems.push(problem(codes, 'condition-not-boolean', item.range, message));
  }
}

/**
 * The model whose entries have no identifiers of their own (it applies another blueprint, found by
 * the identifiers in its attrs) needs `attrs.identifiers`. Found from the schema, not by name.
 */
function checkAttrsIdentifiers(
  attrs: BNode | undefined,
  model: ModelInfo,
  modelRange: [number, number],
  problems: Problem[],
): void {
  if (attrs && (attrs.kind !== 'map' || isDeferred(attrs) || findEntry(attrs, 'identifiers'))) return;
  const message = `An entry of ${model.name} has no identifiers of its own: add attrs.identifiers to say which one to use.`;
  problems.push(problem(codes, 'attrs-identifiers-missing', modelRange, message));
}
