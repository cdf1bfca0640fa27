import type { BMap, BNode } from './blueprint-node.ts';
import { problem, schemaCodes, withFix, withSuggestions, type Problem } from './problem.ts';
import { isObject, type SchemaIndex } from './schema-index.ts';
import { checkEntryAlone } from './validate-entry.ts';
import { findEntry, hint, isDeferred, keyName, suggest } from './validate-helpers.ts';

/** The checks of one entry (a node of an entries sequence); the language service memoizes them. */
export type EntryCheck = (entry: BNode) => readonly Problem[];

const codes = schemaCodes;

/**
 * Schema checks of a whole blueprint, discriminator-first: the top level by hand, each entry by
 * its `model`, the fields of `attrs`/`identifiers` with that model's definition only.
 * Tagged values are resolved at apply time and are accepted wherever a value is expected.
 */
export function validateBlueprint(
  root: BNode | undefined,
  index: SchemaIndex,
  checkEntry: EntryCheck = (node) => checkEntryAlone(node, index),
): Problem[] {
  const problems: Problem[] = [];
  if (!root || isDeferred(root)) return problems;
  if (root.kind !== 'map') {
    const message = 'A blueprint must be a mapping with version, entries and optionally metadata and context.';
    problems.push(problem(codes, 'root-not-map', root.range, message));
    return problems;
  }
  for (const entry of root.entries) {
    const name = keyName(entry);
    if (name === undefined || index.topLevelKeys.includes(name)) continue;
    const suggestion = suggest(name, index.topLevelKeys);
    const message = `Unknown top-level key '${name}'.${hint(suggestion)}`;
    problems.push(
      withSuggestions(problem(codes, 'top-unknown-key', entry.key.range, message), entry.key.range, [suggestion]),
    );
  }
  const start: [number, number] = root.entries[0]?.key.range ?? [0, 0];

  const version = findEntry(root, 'version');
  if (!version)
    problems.push(problem(codes, 'version-missing', start, 'The blueprint has no version: add version: 1.'));
  else checkVersion(version.value, index, problems);

  const metadata = findEntry(root, 'metadata');
  if (metadata) checkMetadata(metadata.key, metadata.value, problems);

  const entries = findEntry(root, 'entries');
  if (!entries) problems.push(problem(codes, 'entries-missing', start, 'The blueprint has no entries.'));
  else checkEntries(entries.value, checkEntry, problems);
  return problems;
}

function checkVersion(value: BNode, index: SchemaIndex, problems: Problem[]): void {
  if (isDeferred(value)) return;
  const properties = isObject(index.root.properties) ? index.root.properties : {};
  const schema = isObject(properties.version) ? properties.version : {};
  const accepted = typeof schema.default === 'number' ? schema.default : 1;
  if (value.kind !== 'scalar' || typeof value.value !== 'number' || !Number.isInteger(value.value)) {
    const message = `version must be a whole number: write version: ${accepted}.`;
    problems.push(problem(codes, 'version-not-integer', value.range, message));
  } else if (value.value !== accepted) {
    const message = `version ${value.value} is not supported: the service accepts version ${accepted} only.`;
    problems.push(problem(codes, 'version-unsupported', value.range, message));
  }
}

function checkMetadata(key: BNode, value: BNode, problems: Problem[]): void {
  if (isDeferred(value)) return;
  if (value.kind !== 'map') {
    const message = 'metadata must be a mapping with name (and optionally labels).';
    problems.push(problem(codes, 'metadata-invalid', value.range, message));
    return;
  }
  const name = findEntry(value, 'name');
  if (!name) problems.push(problem(codes, 'metadata-name-missing', key.range, 'metadata needs a name.'));
  else if (!isDeferred(name.value) && (name.value.kind !== 'scalar' || typeof name.value.value !== 'string')) {
    problems.push(problem(codes, 'metadata-invalid', name.value.range, 'metadata.name must be a string.'));
  }
  const labels = findEntry(value, 'labels');
  if (labels) checkLabels(labels.value, problems);
}

function checkLabels(labels: BNode, problems: Problem[]): void {
  if (isDeferred(labels)) return;
  if (labels.kind !== 'map') {
    const message = 'metadata.labels must be a mapping of strings to strings.';
    problems.push(problem(codes, 'metadata-invalid', labels.range, message));
    return;
  }
  for (const { value } of labels.entries) {
    if (isDeferred(value) || (value.kind === 'scalar' && typeof value.value === 'string')) continue;
    if (value.kind !== 'scalar') {
      problems.push(problem(codes, 'label-not-string', value.range, 'Label values must be strings.'));
      continue;
    }
    const quoted = JSON.stringify(value.value === null ? '' : String(value.value));
    const found = problem(codes, 'label-not-string', value.range, `Label values must be strings: quote it: ${quoted}.`);
    problems.push(withFix(found, `Quote as ${quoted}`, value.range, quoted));
  }
}

function checkEntries(value: BNode, checkEntry: EntryCheck, problems: Problem[]): void {
  if (isDeferred(value)) return;
  if (value.kind === 'seq') {
    for (const item of value.items) problems.push(...checkEntry(item));
    return;
  }
  if (value.kind === 'map') {
    checkGroups(value, checkEntry, problems);
    return;
  }
  const message = 'entries must be a sequence of entries, or a mapping of named groups (each a sequence of entries).';
  problems.push(problem(codes, 'entries-invalid', value.range, message));
}

function checkGroups(groups: BMap, checkEntry: EntryCheck, problems: Problem[]): void {
  for (const { key, value } of groups.entries) {
    if (isDeferred(value)) continue;
    if (value.kind !== 'seq') {
      const name = key.kind === 'scalar' ? String(key.value) : 'group';
      const message = `The group '${name}' must be a sequence of entries.`;
      problems.push(problem(codes, 'entries-invalid', value.range, message));
      continue;
    }
    for (const item of value.items) problems.push(...checkEntry(item));
  }
}
