import { navigationIndex } from '../navigation/navigation.ts';
import type { Range } from '../problem.ts';
import { entryAt, listEntries, type EntryRef } from '../reading/blueprint-entries.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { pathAt, type PathStep } from '../reading/node-path.ts';
import { keyName } from '../reading/node-queries.ts';
import { lineIndexOf } from '../reading/text-document.ts';
import { resolvePointer } from '../schema/json-pointer.ts';
import { caseSensitivePart, isObject, type JsonObject, type SchemaIndex } from '../schema/schema-index.ts';
import { describeType } from '../schema/schema-types.ts';
import { identifiersText } from '../symbols/document-symbols.ts';
import { tagsByName, type TagInfo } from '../tag-table.ts';

/** What to show for the thing under the cursor, and the text it is about. */
export interface HoverResult {
  markdown: string;
  range: Range;
}

/**
 * The hover at `offset` of a blueprint (`root` parsed from `text`), from the schema and the tag
 * table only: a known tag (and for `!KeyOf` the entry it refers to), an entry's model, a key or
 * value the schema describes (top-level keys, entry keys, fields at any depth). Undefined between
 * items and where nothing is known. Never throws.
 */
export function doHover(
  root: BNode | undefined,
  offset: number,
  index: SchemaIndex,
  text: string,
): HoverResult | undefined {
  const path = pathAt(root, offset);
  const target = path.at(-1)?.node;
  if (!target) return undefined;
  const tagged = innermostTag(path);
  if (tagged) return { markdown: tagMarkdown(tagged.node, tagged.tag, root, text), range: tagged.node.range };
  // Between the items of a mapping or sequence there is nothing in particular to describe.
  if (target.kind === 'map' || target.kind === 'seq') return undefined;
  const entry = entryAt(listEntries(root), offset);
  const at = entry ? path.findIndex((step) => step.node === entry.node) : -1;
  const markdown = entry && at >= 0 ? entryMarkdown(entry, path.slice(at + 1), index) : topLevelMarkdown(path, index);
  return markdown === undefined ? undefined : { markdown, range: target.range };
}

/** Inside a tag's arguments the tag is what the text means: the schema only sees its result. */
function innermostTag(path: readonly PathStep[]): { node: BNode; tag: TagInfo } | undefined {
  for (let at = path.length - 1; at >= 0; at--) {
    const node = path[at]!.node;
    const tag = node.tag === undefined ? undefined : tagsByName.get(node.tag);
    if (tag) return { node, tag };
  }
  return undefined;
}

/** A key name or a sequence index on the way from a node down to the hovered one. */
type Step = string | number;

/** The keys and indices of a path; undefined when a key is not a plain scalar (no schema names it). */
function stepsOf(path: readonly PathStep[]): Step[] | undefined {
  const steps: Step[] = [];
  for (const step of path) {
    if (step.index !== undefined) steps.push(step.index);
    else if (step.pair) {
      const name = keyName(step.pair);
      if (name === undefined) return undefined;
      steps.push(name);
    }
  }
  return steps;
}

function labelOf(steps: readonly Step[]): string {
  return steps.reduce<string>((label, step) => {
    if (typeof step === 'number') return `${label}[${step}]`;
    return label === '' ? step : `${label}.${step}`;
  }, '');
}

function topLevelMarkdown(path: readonly PathStep[], index: SchemaIndex): string | undefined {
  const steps = stepsOf(path);
  if (!steps || steps.length === 0) return undefined;
  return schemaMarkdown(code(labelOf(steps)), index.root, schemaAt(index.root, index.root, steps));
}

function entryMarkdown(entry: EntryRef, inner: readonly PathStep[], index: SchemaIndex): string | undefined {
  const first = inner[0];
  const steps = stepsOf(inner);
  if (!first?.pair || !steps) return undefined;
  const onModelValue = inner.length === 1 && !first.isKey && steps[0] === 'model';
  if (onModelValue && entry.model !== undefined) return modelMarkdown(entry.model, index);
  const model = entry.model === undefined ? undefined : index.lookupModel(entry.model).model;
  const label = labelOf(steps);
  if (model) {
    const title = `${code(label)} in ${code(model.name)}`;
    return schemaMarkdown(title, index.root, schemaAt(index.root, model.entry, steps));
  }
  // Without a known model only what every model shares is certain: an entry key's description.
  if (steps.length !== 1) return undefined;
  const shared = [...index.models.values()]
    .map((info) => (isObject(info.entry.properties) ? info.entry.properties[label] : undefined))
    .find(isObject);
  const description = resolved(index.root, shared)?.description;
  return typeof description === 'string' ? schemaMarkdown(code(label), index.root, { description }) : undefined;
}

function modelMarkdown(name: string, index: SchemaIndex): string {
  const lookup = index.lookupModel(name);
  if (!lookup.model) {
    const guesses = lookup.suggestions.length > 0 ? ` Did you mean ${list(lookup.suggestions)}?` : '';
    return `${code(name)}: no model of this name in ${index.title ?? 'the schema'}.${guesses}`;
  }
  const model = lookup.model;
  const parts = [`${code(model.name)} — a model of the app ${code(model.app)}`];
  if (lookup.caseMismatch) {
    const part = caseSensitivePart(name, model);
    parts.push(
      part
        ? `Written ${code(name)}: the ${part} is case-sensitive, so the service finds no model.`
        : `Written ${code(name)}: the service lowercases the model part.`,
    );
  }
  if (typeof model.entry.description === 'string') parts.push(paragraph(model.entry.description));
  const fields = model.fieldNames.length > 0 ? `: ${list(model.fieldNames)}` : '';
  const facts = [
    `${counted(model.fieldNames.length, 'field')}${fields}`,
    model.identifiersRequired ? 'Identifiers required' : 'Identifiers not required',
    counted(model.permissionCodenames.length, 'permission codename'),
  ];
  parts.push(bullets(facts));
  return parts.join('\n\n');
}

function tagMarkdown(node: BNode, tag: TagInfo, root: BNode | undefined, text: string): string {
  const kinds = tag.kinds.map((kind) =>
    kind === 'seq'
      ? `a sequence${tag.arity ? ` of ${tag.arity.text}` : ''}`
      : kind === 'map'
        ? 'a mapping'
        : 'a scalar',
  );
  const parts = [
    `**${code(tag.name)}** — ${tag.meaning}`,
    bullets(tag.forms.map(code)),
    `Takes ${kinds.join(' or ')}.`,
  ];
  const target = tag.name === '!KeyOf' ? keyOfTarget(node, root, text) : undefined;
  if (target) parts.push(target);
  return parts.join('\n\n');
}

/** Where `!KeyOf id` points, resolved as go-to-definition resolves it: only entries above count. */
function keyOfTarget(node: BNode, root: BNode | undefined, text: string): string | undefined {
  const { entries, references } = navigationIndex(text, root);
  const reference = references.find((candidate) => candidate.node === node);
  if (!reference || reference.id === '') return undefined;
  const lines = lineIndexOf(text);
  const lineOf = (entry: EntryRef): number => lines.positionAt(entry.node.range[0]).line + 1;
  const target = reference.target;
  if (target) {
    const identifiers = identifiersText(target.identifiers);
    const model = target.model === undefined ? 'no model' : `model ${code(target.model)}`;
    return `Refers to the entry at line ${lineOf(target)}: ${model}${identifiers ? `, identifiers ${code(identifiers)}` : ''}.`;
  }
  const other = entries.find((entry) => entry.id === reference.id);
  const later = other ? ` The entry at line ${lineOf(other)} is not above it, and !KeyOf only sees entries above.` : '';
  return `No entry above defines ${code(reference.id)}.${later}`;
}

/** A schema with its `$ref`s followed; the referring schema's own keywords (its description) win. */
function resolved(root: JsonObject, schema: unknown): JsonObject | undefined {
  if (!isObject(schema)) return undefined;
  let merged = schema;
  // A few hops only: a schema that refers to itself must not loop.
  for (let hop = 0; hop < 8 && typeof merged.$ref === 'string'; hop++) {
    const { $ref, ...own } = merged;
    merged = { ...resolvePointer(root, $ref as string), ...own };
  }
  return merged;
}

const branchKeywords = ['anyOf', 'oneOf', 'allOf'] as const;

function branchesOf(root: JsonObject, schema: JsonObject): JsonObject[] {
  return branchKeywords
    .flatMap((keyword) => (Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : []))
    .map((branch) => resolved(root, branch))
    .filter((branch) => branch !== undefined);
}

/** The schema of one key or item of a value with `schema`, looking into `anyOf`-like branches too. */
function childSchema(root: JsonObject, schema: JsonObject, step: Step, depth = 0): JsonObject | undefined {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const direct =
    typeof step === 'number'
      ? Array.isArray(schema.items)
        ? (schema.items as unknown[])[step]
        : schema.items
      : Object.hasOwn(properties, step)
        ? properties[step]
        : schema.additionalProperties;
  if (isObject(direct)) return resolved(root, direct);
  if (depth > 4) return undefined;
  for (const branch of branchesOf(root, schema)) {
    const found = childSchema(root, branch, step, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function schemaAt(root: JsonObject, start: unknown, steps: readonly Step[]): JsonObject | undefined {
  let schema = resolved(root, start);
  for (const step of steps) schema = schema && childSchema(root, schema, step);
  return schema;
}

/** The type, constraints and default a schema states, as short sentences. */
function schemaFacts(root: JsonObject, schema: JsonObject): string[] {
  const facts: string[] = [];
  // `entries` is a sequence or a mapping of groups: an `anyOf` whose branches carry the types.
  const types =
    schema.type === undefined
      ? [...new Set(branchesOf(root, schema).flatMap((branch) => typesOf(branch.type)))]
      : typesOf(schema.type);
  const items = resolved(root, schema.items);
  if (types.length > 0) {
    const each = items?.type === undefined ? '' : `; each item ${describeType(items.type)}`;
    facts.push(sentence(`${describeType(types)}${each}`));
  }
  if (schema.const !== undefined) facts.push(`Always ${code(show(schema.const))}`);
  // All of them: a problem about a value outside a long enumeration sends the reader here. A choice
  // the service compares as a string is listed as both 6 and "6": it is named once.
  const choices = (values: unknown[]) => list([...new Set(values.map(show))], Infinity);
  if (Array.isArray(schema.enum)) facts.push(`One of: ${choices(schema.enum)}`);
  if (items && Array.isArray(items.enum)) facts.push(`Items one of: ${choices(items.enum)}`);
  if (typeof schema.format === 'string') facts.push(`Format ${code(schema.format)}`);
  const limits: [string, string][] = [
    ['minimum', 'At least %'],
    ['exclusiveMinimum', 'Greater than %'],
    ['maximum', 'At most %'],
    ['exclusiveMaximum', 'Less than %'],
    ['minLength', 'At least % characters'],
    ['maxLength', 'At most % characters'],
    ['minItems', 'At least % items'],
    ['maxItems', 'At most % items'],
  ];
  for (const [keyword, words] of limits) {
    const limit = schema[keyword];
    if (typeof limit !== 'number') continue;
    facts.push(keyword === 'minLength' && limit === 1 ? 'Not empty' : words.replace('%', String(limit)));
  }
  // A pattern of a validator the service runs is shown as its rule: the pattern may be long.
  const rule = schema['x-rule'];
  if (isObject(rule) && typeof rule.says === 'string' && typeof rule.example === 'string') {
    facts.push(`Must be ${rule.says}, e.g. ${code(rule.example)}`);
  } else if (typeof schema.pattern === 'string') facts.push(`Matches ${code(schema.pattern)}`);
  if (schema.default !== undefined) facts.push(`Default: ${code(show(schema.default))}`);
  return facts;
}

function typesOf(type: unknown): string[] {
  if (Array.isArray(type)) return type.map(String);
  return type === undefined ? [] : [String(type)];
}

/** `title` is Markdown already: the hovered key path, and where it belongs. */
function schemaMarkdown(title: string, root: JsonObject, schema: JsonObject | undefined): string | undefined {
  if (!schema) return undefined;
  const facts = schemaFacts(root, schema);
  const description = typeof schema.description === 'string' ? schema.description : '';
  if (facts.length === 0 && description === '') return undefined;
  const parts = [title];
  if (facts.length > 0) parts.push(bullets(facts));
  if (description !== '') parts.push(paragraph(description));
  return parts.join('\n\n');
}

/** Long lists (a model's fields) are cut: a hover is read at a glance. The values of an enum are not. */
const LIST_LIMIT = 30;

function list(values: readonly string[], limit = LIST_LIMIT): string {
  const shown = values.slice(0, limit).map(code).join(', ');
  return values.length > limit ? `${shown}, … (${values.length - limit} more)` : shown;
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Markdown code, safe for text that itself contains backticks. */
function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line}`).join('\n');
}

/** Schema descriptions break lines on purpose (one value per line): keep them in Markdown. */
function paragraph(text: string): string {
  return text.replace(/\n/g, '  \n');
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
