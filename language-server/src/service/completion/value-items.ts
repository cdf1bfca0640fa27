import type { JsonObject, SchemaIndex } from '../schema/schema-index.ts';
import type { CompletionContext } from './completion-context.ts';
import { expand } from './completion-schema.ts';
import type { CompletionKind, Draft, Site } from './completion-site.ts';

/** YAML booleans, nulls and numbers that a plain string would turn into. */
const notPlainString =
  /^(?:true|false|yes|no|on|off|y|n|null|~|[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|0x[\da-f]+|0o[0-7]+|[-+]?\.inf|\.nan)$/i;

/** A scalar as YAML text: strings quoted where a plain scalar would read differently. */
export function yamlScalar(value: unknown, context: CompletionContext): string {
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
export function scalarValues(
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
    if (Array.isArray(schema.enum)) {
      const values: unknown[] = schema.enum;
      // A choice listed as both "6" and 6 (the service compares choices as strings): the number alone.
      const twin = (value: unknown) => typeof value === 'string' && value !== '' && values.includes(Number(value));
      for (const value of values) if (!twin(value)) add(value, 'value', 'enum');
    }
    if (schema.const !== undefined) add(schema.const, 'value', 'constant');
    if ([schema.type].flat().includes('boolean')) for (const value of [true, false]) add(value, 'keyword', 'boolean');
    if (schema.default !== undefined) add(schema.default, 'value', 'default');
  }
  return [...found.values()];
}

/** The values the schemas at the cursor name. */
export function valueItems(site: Site, schemas: readonly JsonObject[]): Draft[] {
  return scalarValues(site.index, schemas, site.context).map(({ text, kind, detail }) => ({
    label: text,
    kind,
    insertText: text,
    snippet: false,
    detail,
  }));
}

/** The models of the schema, those that match what is typed first. */
export function modelItems(site: Site): Draft[] {
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
