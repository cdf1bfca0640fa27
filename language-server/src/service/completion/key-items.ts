import { isObject, type JsonObject } from '../schema/schema-index.ts';
import { describe, expand, MAX_CHOICES, typesOf } from './completion-schema.ts';
import type { Draft, Site } from './completion-site.ts';
import { scalarValues } from './value-items.ts';

/** The labels the identity service reads (facts of the format, see the blueprint reference). */
export const knownLabels = [
  'blueprints.idp.example/instantiate',
  'blueprints.idp.example/system',
  'blueprints.idp.example/description',
  'blueprints.idp.example/generated',
] as const;

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

/** The keys the schemas at the cursor allow, less those the mapping already has. */
export function keyItems(site: Site, schemas: readonly JsonObject[]): Draft[] {
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

/** The keys of `metadata.labels`: the labels the service reads. */
export function labelItems(site: Site): Draft[] {
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
