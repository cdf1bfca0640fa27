import { problem, schemaCodes, withFix, withSuggestions, type Problem } from '../problem.ts';
import type { BMap, BNode, BScalar } from '../reading/blueprint-node.ts';
import { findEntry, isDeferred, keyName } from '../reading/node-queries.ts';
import { isObject, type SchemaIndex } from '../schema/schema-index.ts';
import type { Check } from './check.ts';
import { suggest } from '../../../../common/spelling.ts';
import { hint } from './suggestions.ts';

const codes = schemaCodes;

/**
 * Schema checks of the top level, discriminator-first: the keys of the root, version, metadata and
 * the shape of `entries` by hand. Each entry is left to the entry checks (by its `model`), which
 * run on the entries `forEachEntry` visits. Tagged values are resolved at apply time and are
 * accepted wherever a value is expected.
 */
export const topLevelCheck: Check = {
  id: 'top-level',
  checkTopLevel: (root, context, problems) => checkTopLevel(root, context.index, context.text, problems),
};

/**
 * Calls `visit` on each entry, in document order: the items of `entries`, or of each of its
 * named groups (flattened in order). The parts the top level rejects or cannot judge (tagged,
 * or not a sequence) have none.
 */
export function forEachEntry(root: BNode | undefined, visit: (entry: BNode) => void): void {
  if (!root || isDeferred(root) || root.kind !== 'map') return;
  const entries = findEntry(root, 'entries')?.value;
  if (!entries || isDeferred(entries)) return;
  if (entries.kind === 'seq') visitAll(entries.items, visit);
  else if (entries.kind === 'map') {
    for (const { value } of entries.entries) {
      if (!isDeferred(value) && value.kind === 'seq') visitAll(value.items, visit);
    }
  }
}

/** Indexed: a for-of allocates an iterator result per entry until V8 has optimised the loop. */
function visitAll(items: readonly BNode[], visit: (entry: BNode) => void): void {
  for (let i = 0; i < items.length; i++) visit(items[i]!);
}

function checkTopLevel(root: BNode | undefined, index: SchemaIndex, text: string, problems: Problem[]): void {
  if (!root || isDeferred(root)) return;
  if (root.kind !== 'map') {
    const message = 'A blueprint must be a mapping with version, entries and optionally metadata and context.';
    problems.push(problem(codes, 'root-not-map', root.range, message));
    return;
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
  else checkVersion(version.value, index, text, problems);

  const metadata = findEntry(root, 'metadata');
  if (metadata) checkMetadata(metadata.key, metadata.value, text, problems);

  const entries = findEntry(root, 'entries');
  if (!entries) problems.push(problem(codes, 'entries-missing', start, 'The blueprint has no entries.'));
  else checkEntriesShape(entries.value, problems);
}

function checkVersion(value: BNode, index: SchemaIndex, text: string, problems: Problem[]): void {
  if (isDeferred(value)) return;
  const properties = isObject(index.root.properties) ? index.root.properties : {};
  const schema = isObject(properties.version) ? properties.version : {};
  const accepted = typeof schema.default === 'number' ? schema.default : 1;
  if (value.kind !== 'scalar' || typeof value.value !== 'number' || !Number.isInteger(value.value)) {
    const message = `version must be a whole number: write version: ${accepted}.`;
    problems.push(problem(codes, 'version-not-integer', value.range, message));
  } else if (writtenAsFloat(value, text)) {
    // The service's loader checks the type: the float 1.0 is refused where the int 1 is accepted.
    const message = `version must be an integer, not ${sourceOf(value, text)}: write version: ${accepted}.`;
    const found = problem(codes, 'version-not-integer', value.range, message);
    problems.push(withSuggestions(found, value.range, [String(accepted)]));
  } else if (value.value !== accepted) {
    const message = `version ${value.value} is not supported: the service accepts version ${accepted} only.`;
    problems.push(problem(codes, 'version-unsupported', value.range, message));
  }
}

/** A number written as a float (`1.0`, `1e0`, `!!float 1`), though its value is whole. */
function writtenAsFloat(node: BScalar, text: string): boolean {
  if (node.tag === 'tag:yaml.org,2002:float') return true;
  const source = sourceOf(node, text);
  return /^[-+]?\d*(\.\d*)?([eE][-+]?\d+)?$/.test(source) && /[.eE]/.test(source);
}

function sourceOf(node: BNode, text: string): string {
  return text.slice(node.range[0], node.range[1]).trim();
}

function checkMetadata(key: BNode, value: BNode, text: string, problems: Problem[]): void {
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
  if (labels) checkLabels(labels.value, text, problems);
}

/** The service refuses to load a file whose label values are not all strings. */
function checkLabels(labels: BNode, text: string, problems: Problem[]): void {
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
    // Quote what is written (`1.10`, not the number 1.1 it reads as); null becomes the empty string.
    const written = value.value === null ? '' : (!value.tag && sourceOf(value, text)) || String(value.value);
    const quoted = JSON.stringify(written);
    const found = problem(codes, 'label-not-string', value.range, `Label values must be strings: quote it: ${quoted}.`);
    // An empty value (`a:`) has an empty range right after the colon: the quotes need a space.
    const newText = value.range[0] === value.range[1] ? ` ${quoted}` : quoted;
    problems.push(withFix(found, `Quote as ${quoted}`, value.range, newText));
  }
}

/** `entries` is a sequence, or a mapping of named groups that are each one. */
function checkEntriesShape(value: BNode, problems: Problem[]): void {
  if (isDeferred(value) || value.kind === 'seq') return;
  if (value.kind === 'map') {
    checkGroups(value, problems);
    return;
  }
  const message = 'entries must be a sequence of entries, or a mapping of named groups (each a sequence of entries).';
  problems.push(problem(codes, 'entries-invalid', value.range, message));
}

function checkGroups(groups: BMap, problems: Problem[]): void {
  for (const { key, value } of groups.entries) {
    if (isDeferred(value) || value.kind === 'seq') continue;
    const name = key.kind === 'scalar' ? String(key.value) : 'group';
    const message = `The group '${name}' must be a sequence of entries.`;
    problems.push(problem(codes, 'entries-invalid', value.range, message));
  }
}
