import { listEntries, plainString, type EntryRef } from '../reading/blueprint-entries.ts';
import { findEntry, keyName } from '../reading/node-queries.ts';
import { blueprintTags, conditionModes, enumerateOutputs } from '../tag-table.ts';
import { childSchemas, describe, referencedModels } from './completion-schema.ts';
import { cursorEntry, schemaAt, type Draft, type Site } from './completion-site.ts';
import { modelItems, valueItems, yamlScalar } from './value-items.ts';

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

/** Every blueprint tag, inserted with the shape of its arguments. */
export function tagItems(): Draft[] {
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

const keywordItems = (words: readonly string[], detail: string): Draft[] =>
  words.map((word) => ({ label: word, kind: 'keyword', insertText: word, snippet: false, detail }));

/** Inside the sequence of a tag (`path[tagged]` steps into it): its arguments where they are known. */
export function tagArgumentItems(site: Site, tagged: number): Draft[] {
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
export function entryIdItems(site: Site): Draft[] {
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
export function contextKeyItems(site: Site): Draft[] {
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
