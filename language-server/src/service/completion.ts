import { completionContext, type CompletionContext, type ContextStep } from './completion-context.ts';
import {
  childSchemas,
  describe,
  expand,
  isObjectSchema,
  MAX_CHOICES,
  referencedModels,
  typesOf,
} from './completion-schema.ts';
import type { Range } from './problem.ts';
import { entryAt, listEntries, plainString, type EntryRef } from './reading/blueprint-entries.ts';
import type { BNode } from './reading/blueprint-node.ts';
import { findEntry, keyName } from './reading/node-queries.ts';
import { isObject, type JsonObject, type ModelInfo, type SchemaIndex } from './schema/schema-index.ts';
import { blueprintTags, conditionModes, enumerateOutputs } from './tag-table.ts';

/** What an item completes, for the client's icon. */
export type CompletionKind =
  /** A mapping key: top-level, entry and field keys, labels. */
  | 'property'
  /** A scalar value from the schema: an enum member, a constant, a default. */
  | 'value'
  /** A model name (`<app>.<model>`). */
  | 'model'
  /** One of the blueprint tags. */
  | 'tag'
  /** The id of an earlier entry, for `!KeyOf`. */
  | 'reference'
  /** A key of the blueprint's `context`. */
  | 'variable'
  /** A fixed word: true/false, a `!Condition` mode, SEQ/MAP. */
  | 'keyword';

export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  /** The text that replaces the result's range. */
  insertText: string;
  /** `insertText` is a snippet (`$1`, `${1:placeholder}`, `${1|a,b|}`, `$0`). */
  snippet: boolean;
  detail?: string;
  /** Markdown. */
  documentation?: string;
  /** Orders the items as the service ranks them (the client filters by label). */
  sortText: string;
  /** After inserting, completion is useful again at once (a key followed by `: `). */
  retrigger?: boolean;
}

export interface CompletionResult {
  items: CompletionEntry[];
  /** Offsets of the word the items replace. */
  range: Range;
  /** More items match than were sent (the client asks again as the word grows). */
  incomplete: boolean;
}

/**
 * Most items one answer carries. A file of thousands of entries offers thousands of ids after
 * `!KeyOf`: the nearest ones that match what is typed are sent, and the list is marked incomplete.
 */
const MAX_ITEMS = 200;

/** The labels the identity service reads (facts of the format, see the blueprint reference). */
export const knownLabels = [
  'blueprints.idp.example/instantiate',
  'blueprints.idp.example/system',
  'blueprints.idp.example/description',
  'blueprints.idp.example/generated',
] as const;

/** Insert texts of the tags: their argument shapes. `!KeyOf` and `!Context` leave the argument to completion. */
const tagSnippets: Readonly<Record<string, string>> = {
  '!KeyOf': '!KeyOf ',
  '!Env': '!Env ${1:NAME}',
  '!File': '!File ${1:/path}',
  '!Context': '!Context ',
  '!ParseJSON': "!ParseJSON '$1'",
  '!Format': '!Format [${1:"%s"}, ${2:arg}]',
  '!Find': '!Find [${1:app.model}, [${2:field}, ${3:value}]]',
  '!FindObject': '!FindObject [${1:app.model}, [${2:field}, ${3:value}]]',
  '!Condition': `!Condition [\${1|${conditionModes.join(',')}|}, \${2:arg}]`,
  '!If': '!If [${1:condition}, ${2:then}, ${3:else}]',
  '!Enumerate': `!Enumerate [\${1:iterable}, \${2|${enumerateOutputs.join(',')}|}, \${3:body}]`,
  '!Index': '!Index ${1:0}',
  '!Value': '!Value ${1:0}',
  '!AtIndex': '!AtIndex [${1:object}, ${2:key}]',
};

/** What the item builders share. */
interface Site {
  text: string;
  root: BNode | undefined;
  index: SchemaIndex;
  context: CompletionContext;
}

/**
 * Completion at `offset` of a blueprint: keys, values, models, tags and their arguments, from the
 * schema in `index` and the document's own entries and context. Never throws.
 */
export function doComplete(
  text: string,
  root: BNode | undefined,
  offset: number,
  index: SchemaIndex,
): CompletionResult {
  const context = completionContext(text, offset);
  if (!context) {
    const at = Math.max(0, Math.min(offset, text.length));
    return { items: [], range: [at, at], incomplete: false };
  }
  let drafts = itemsAt({ text, root, index, context });
  const incomplete = drafts.length > MAX_ITEMS;
  if (incomplete) {
    const typed = context.typed.toLowerCase();
    drafts = drafts.filter((item) => item.label.toLowerCase().includes(typed)).slice(0, MAX_ITEMS);
  }
  const items = drafts.map((item, position) => ({
    ...item,
    insertText: (context.spaceBefore ? ' ' : '') + item.insertText,
    sortText: String(position).padStart(4, '0'),
  }));
  return { items, range: context.range, incomplete };
}

type Draft = Omit<CompletionEntry, 'sortText'>;

function itemsAt(site: Site): Draft[] {
  const { context } = site;
  if (context.scalarTag === '!KeyOf') return entryIdItems(site);
  if (context.scalarTag === '!Context') return contextKeyItems(site);
  if (context.scalarTag) return [];
  // A tag cannot start inside quotes.
  const tags = context.quoted ? [] : tagItems();
  const tagged = context.path.findLastIndex((step) => step.tag !== undefined);
  if (tagged >= 0) return context.slot === 'value' ? [...tagArgumentItems(site, tagged), ...tags] : [];
  const { path, slot } = context;
  if (slot === 'key' && path.length === 2 && stepName(path[0]) === 'metadata' && stepName(path[1]) === 'labels') {
    return labelItems(site);
  }
  const entryKey = entryStep(path) === path.length - 2 ? stepName(path.at(-1)) : undefined;
  if (slot === 'value' && entryKey === 'model') return [...modelItems(site), ...tags];
  const schemas = schemaAt(site);
  // An entry's state is one of four words the service reads before any tag is resolved.
  if (slot === 'value' && entryKey === 'state') return valueItems(site, schemas);
  if (slot === 'key' || (slot === 'either' && isObjectSchema(site.index, schemas))) return keyItems(site, schemas);
  return [...valueItems(site, schemas), ...tags];
}

const stepName = (step: ContextStep | undefined): string | undefined => (step?.kind === 'key' ? step.name : undefined);

/** Where the path steps into an entry: an item of `entries`, or of one of its named groups; -1 if it does not. */
function entryStep(path: readonly ContextStep[]): number {
  if (stepName(path[0]) !== 'entries') return -1;
  if (path[1]?.kind === 'item') return 1;
  return path[1]?.kind === 'key' && path[2]?.kind === 'item' ? 2 : -1;
}

/** The entry holding the cursor per the tree, found from where the text says its item starts. */
function cursorEntry(site: Site, entries: readonly EntryRef[]): EntryRef | undefined {
  const step = site.context.path[entryStep(site.context.path)];
  return step?.kind === 'item' ? entryAt(entries, step.start) : undefined;
}

function modelOf(site: Site): ModelInfo | undefined {
  const name = cursorEntry(site, listEntries(site.root))?.model;
  return name === undefined ? undefined : site.index.lookupModel(name).model;
}

// ---- the schema at the cursor

/**
 * The schemas of the node at the cursor's path. In an entry, the branch of its model; without a
 * known model, every branch, as far as they agree (the entry's keys and `state`, not its fields).
 */
function schemaAt(site: Site): JsonObject[] {
  const { path } = site.context;
  const entry = entryStep(path);
  const model = entry >= 0 ? modelOf(site) : undefined;
  let schemas: JsonObject[] = [site.index.root];
  path.forEach((step, at) => {
    if (at === entry && model) schemas = [model.entry];
    else schemas = childSchemas(site.index, schemas, step);
    if (entry >= 0 && at > entry && !model && new Set(schemas.map((schema) => JSON.stringify(schema))).size > 1) {
      schemas = [];
    }
  });
  return schemas;
}

// ---- keys

/** Escapes text for a snippet; a choice's options also escape its separators. */
const snippetText = (text: string): string => text.replace(/[\\$}]/g, '\\$&');
const choiceText = (text: string): string => text.replace(/[\\$}|,]/g, '\\$&');

/** The insert text of a key: `name: ` for scalars, a block for mappings and sequences (indented below it). */
function keyInsert(
  site: Site,
  name: string,
  schemas: readonly JsonObject[],
): Pick<Draft, 'insertText' | 'snippet' | 'retrigger'> {
  const { context, index } = site;
  if (context.quoted || context.colonFollows) return { insertText: name, snippet: false };
  const types = typesOf(index, schemas);
  const block = context.block && (types.has('object') || types.has('array'));
  if (block) {
    const column = context.column + (context.spaceBefore ? 1 : 0) + context.indentUnit;
    const dash = [...types][0] === 'array' || !types.has('object') ? '- ' : '';
    return { insertText: `${snippetText(name)}:\n${' '.repeat(column)}${dash}$0`, snippet: true };
  }
  const choices = scalarValues(index, schemas, context);
  if (choices.length > 0 && choices.length <= MAX_CHOICES) {
    return {
      insertText: `${snippetText(name)}: \${1|${choices.map(({ text }) => choiceText(text)).join(',')}|}`,
      snippet: true,
    };
  }
  return { insertText: `${name}: `, snippet: false, retrigger: true };
}

function keyItems(site: Site, schemas: readonly JsonObject[]): Draft[] {
  // A key's schemas from every alternative (every entry branch when the model is unknown).
  const byName = new Map<string, JsonObject[]>();
  for (const schema of expand(site.index, schemas)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [name, property] of Object.entries(properties)) {
      if (site.context.siblings.has(name) || !isObject(property)) continue;
      byName.set(name, [...(byName.get(name) ?? []), property]);
    }
  }
  return [...byName].map(([name, properties]) => ({
    label: name,
    kind: 'property',
    ...keyInsert(site, name, properties),
    ...describe(site.index, properties),
  }));
}

function labelItems(site: Site): Draft[] {
  const { context } = site;
  const bare = context.quoted || context.colonFollows;
  return knownLabels
    .filter((label) => !context.siblings.has(label))
    .map((label) => ({
      label,
      kind: 'property',
      // Label values must be strings: the snippet quotes the value.
      insertText: bare ? label : `${label}: "$1"`,
      snippet: !bare,
      detail: 'label read by the service',
    }));
}

// ---- values

/** YAML booleans, nulls and numbers that a plain string would turn into. */
const notPlainString =
  /^(?:true|false|yes|no|on|off|y|n|null|~|[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|0x[\da-f]+|0o[0-7]+|[-+]?\.inf|\.nan)$/i;

/** A scalar as YAML text: strings quoted where a plain scalar would read differently. */
function yamlScalar(value: unknown, context: CompletionContext): string {
  if (typeof value !== 'string') return JSON.stringify(value) ?? 'null';
  if (context.quoted) return value;
  const plain =
    value !== '' &&
    !notPlainString.test(value) &&
    !/^[\s\-?:,[\]{}#&*!|>'"%@`]|\s$|: |\s#|[\n\t]/.test(value) &&
    !(!context.block && /[,[\]{}]/.test(value));
  return plain ? value : JSON.stringify(value);
}

/** The values a schema names: enum members, a constant, true/false, its default. */
function scalarValues(
  index: SchemaIndex,
  schemas: readonly JsonObject[],
  context: CompletionContext,
): { text: string; kind: CompletionKind; detail: string }[] {
  const found = new Map<string, { text: string; kind: CompletionKind; detail: string }>();
  const add = (value: unknown, kind: CompletionKind, detail: string) => {
    if (value !== null && typeof value === 'object') return;
    const text = yamlScalar(value, context);
    if (!found.has(text)) found.set(text, { text, kind, detail });
  };
  for (const schema of expand(index, schemas)) {
    if (Array.isArray(schema.enum)) for (const value of schema.enum) add(value, 'value', 'enum');
    if (schema.const !== undefined) add(schema.const, 'value', 'constant');
    if ([schema.type].flat().includes('boolean')) for (const value of [true, false]) add(value, 'keyword', 'boolean');
    if (schema.default !== undefined) add(schema.default, 'value', 'default');
  }
  return [...found.values()];
}

function valueItems(site: Site, schemas: readonly JsonObject[]): Draft[] {
  return scalarValues(site.index, schemas, site.context).map(({ text, kind, detail }) => ({
    label: text,
    kind,
    insertText: text,
    snippet: false,
    detail,
  }));
}

function modelItems(site: Site): Draft[] {
  const typed = site.context.typed.toLowerCase();
  // Names starting with what is typed first, then those whose model part does, then the rest.
  const rank = (name: string): number => {
    const lower = name.toLowerCase();
    if (lower.startsWith(typed)) return 0;
    return lower.slice(lower.indexOf('.') + 1).startsWith(typed) ? 1 : lower.includes(typed) ? 2 : 3;
  };
  return [...site.index.models.values()]
    .map((model) => ({ model, rank: rank(model.name) }))
    .sort((a, b) => a.rank - b.rank || a.model.name.localeCompare(b.model.name))
    .map(({ model }) => ({
      label: model.name,
      kind: 'model',
      insertText: yamlScalar(model.name, site.context),
      snippet: false,
      detail: model.app,
      ...(typeof model.entry.description === 'string' ? { documentation: model.entry.description } : {}),
    }));
}

function tagItems(): Draft[] {
  return blueprintTags.map((tag) => ({
    label: tag.name,
    kind: 'tag',
    insertText: tagSnippets[tag.name] ?? `${tag.name} `,
    snippet: true,
    detail: tag.forms.join('  |  '),
    documentation: `${tag.meaning}\n\n${tag.forms.map((form) => `- \`${form}\``).join('\n')}`,
    retrigger: tag.name === '!KeyOf' || tag.name === '!Context',
  }));
}

// ---- tag arguments

const keywordItems = (words: readonly string[], detail: string): Draft[] =>
  words.map((word) => ({ label: word, kind: 'keyword', insertText: word, snippet: false, detail }));

/** Inside the sequence of a tag (`path[tagged]` steps into it): its arguments where they are known. */
function tagArgumentItems(site: Site, tagged: number): Draft[] {
  const { path } = site.context;
  const step = path[tagged];
  const pair = path[tagged + 1];
  if (step?.kind !== 'item') return [];
  const argument = step.index ?? 0;
  const find = step.tag === '!Find' || step.tag === '!FindObject';
  if (pair === undefined) {
    if (find && argument === 0) return modelItems(site);
    if (step.tag === '!Condition' && argument === 0) return keywordItems(conditionModes, 'mode');
    if (step.tag === '!Enumerate' && argument === 1) return keywordItems(enumerateOutputs, 'output');
    if (step.tag === '!Context' && argument === 0) return contextKeyItems(site);
    return [];
  }
  // `!Find [model, [field, value], ...]`: the fields of the model, then the field's values.
  const model =
    find && argument > 0 && path.length === tagged + 2 && pair.kind === 'item' && step.first !== undefined
      ? site.index.lookupModel(step.first).model
      : undefined;
  if (!model?.fields || pair.kind !== 'item') return [];
  if ((pair.index ?? 0) === 0) {
    return model.fieldNames.map((name) => {
      const info = describe(site.index, childSchemas(site.index, [model.fields!], { kind: 'key', name }));
      return { label: name, kind: 'property', insertText: yamlScalar(name, site.context), snippet: false, ...info };
    });
  }
  const field =
    pair.first === undefined ? [] : childSchemas(site.index, [model.fields], { kind: 'key', name: pair.first });
  return pair.index === 1 ? valueItems(site, field) : [];
}

/**
 * `!KeyOf` sees the entries above the one it is in: their ids, nearest first. Where the field says
 * which models it refers to, the ids of entries of those models come first, each part nearest first.
 */
function entryIdItems(site: Site): Draft[] {
  const entries = listEntries(site.root);
  const own = cursorEntry(site, entries);
  const limit = site.context.range[0];
  const above = own ? entries.slice(0, own.position) : entries.filter((entry) => entry.node.range[1] < limit);
  const byId = new Map<string, EntryRef>();
  for (const entry of above) if (entry.id !== undefined) byId.set(entry.id, entry);
  const nearestFirst = [...byId.values()].reverse();
  const models = fieldReferences(site);
  const fits = (entry: EntryRef): boolean => entry.model !== undefined && models.has(entry.model.toLowerCase());
  const ranked = [...nearestFirst.filter(fits), ...nearestFirst.filter((entry) => !fits(entry))];
  return ranked.map((entry) => {
    const identifiers = entry.identifiers?.kind === 'map' ? entry.identifiers.entries : [];
    const summary = identifiers
      .map((pair) => `${keyName(pair) ?? '?'}: ${plainString(pair.value) ?? site.text.slice(...pair.value.range)}`)
      .join(', ');
    const place = `Entry ${entry.position + 1}${entry.group ? ` (group ${entry.group.name})` : ''}`;
    return {
      label: entry.id!,
      kind: 'reference',
      insertText: yamlScalar(entry.id, site.context),
      snippet: false,
      detail: [entry.model ?? 'no model', summary].filter(Boolean).join(' · '),
      documentation: `${place}: \`${entry.model ?? '?'}\`${fits(entry) ? ', a model this field refers to' : ''}`,
    };
  });
}

/**
 * The models the field at a `!KeyOf` refers to. Inside another tag's arguments the id goes to that
 * tag, not to the field, so nothing is known there.
 */
function fieldReferences(site: Site): Set<string> {
  if (site.context.path.some((step) => step.tag !== undefined)) return new Set();
  return referencedModels(site.index, schemaAt(site));
}

/** `!Context` reads the keys of the blueprint's top-level `context`. */
function contextKeyItems(site: Site): Draft[] {
  const context = site.root?.kind === 'map' ? findEntry(site.root, 'context')?.value : undefined;
  if (context?.kind !== 'map') return [];
  return context.entries.flatMap((pair) => {
    const name = keyName(pair);
    if (name === undefined) return [];
    const value = site.text.slice(...pair.value.range);
    return [
      {
        label: name,
        kind: 'variable',
        insertText: yamlScalar(name, site.context),
        snippet: false,
        detail: value.length > 60 ? `${value.slice(0, 59)}…` : value,
      },
    ];
  });
}
