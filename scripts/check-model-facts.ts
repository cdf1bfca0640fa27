/**
 * `npx tsx scripts/check-model-facts.ts [FACTS.json]`: compares the generated blueprint schema with
 * the per-model field facts (type, enum, bounds, permissions) of a release, and prints every
 * difference. Without an argument it reads schemas/release-facts.json, the committed copy
 * (scripts/import-release-facts.ts writes it); `test/blueprint-schema/model-facts.test.ts` runs the
 * same comparison.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { loadBlueprintSource, type ServiceFieldsSource } from './blueprint-schema/blueprint-source.ts';
import { SCHEMA_SOURCE_DIR, generateBlueprintSchemaText } from './blueprint-schema/generate.ts';

export interface ModelFacts {
  model_order: string[];
  models: Record<
    string,
    { identifiers_required: boolean; fields: Record<string, unknown>; permission_codenames: string[] }
  >;
}

/**
 * Where the release's schema is wrong about the service, our schema says what the service does
 * (schemas/source/models.yaml gives the reason next to the field). Keyed `<model>.<field>`. The
 * fields service-fields.yaml widens are compared after `releaseView` narrows them back.
 */
export const deviations: Record<string, unknown> = {
  // The facts are of 2025.12.0; the patch release 2025.12.4 no longer accepts `other`.
  'idp_sources_kerberos.kerberossource.kadmin_type': { type: 'string', enum: ['MIT', 'Heimdal'] },
};

/**
 * A field of our schema as the release's schema would have it: without the `null` and the numbers
 * service-fields.yaml adds (the generator's widening, undone), and without the pattern of a rule of
 * field-rules.yaml (a validator of the service) unless the release has that pattern too.
 */
export function releaseView(
  schema: unknown,
  model: string,
  field: string,
  service: ServiceFieldsSource,
  fact?: unknown,
): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const view = { ...(schema as Record<string, unknown>) };
  if ('x-rule' in view) {
    delete view['x-rule'];
    const releasePattern = (fact as { pattern?: unknown } | undefined)?.pattern;
    if (releasePattern !== view.pattern) delete view.pattern;
  }
  const types = (): string[] => [view.type].flat() as string[];
  if (service.nullable.get(model)?.has(field)) {
    const rest = types().filter((type) => type !== 'null');
    view.type = rest.length === 1 ? rest[0] : rest;
    if (Array.isArray(view.enum)) view.enum = view.enum.filter((value) => value !== null);
  }
  if (service.stringChoices.get(model)?.has(field)) {
    view.type = types().filter((type) => type !== 'integer' && type !== 'number');
    if ((view.type as string[]).length === 1) view.type = (view.type as string[])[0];
    if (Array.isArray(view.enum)) view.enum = view.enum.filter((value) => typeof value !== 'number');
  }
  return view;
}

/** schemas/release-facts.json: the facts of the release our schema follows, committed. */
export const RELEASE_FACTS_FILE = fileURLToPath(new URL('../schemas/release-facts.json', import.meta.url));

/** The committed facts: one object per model, in release order. */
export interface ReleaseFacts {
  release: string;
  note: string;
  models: Array<{
    model: string;
    identifiers: 'required' | 'none';
    permissions: string[];
    fields: Record<string, unknown>;
  }>;
}

/** A facts file: the committed one (schemas/release-facts.json) or a release's own, whichever `file` holds. */
export function readModelFacts(file: string = RELEASE_FACTS_FILE): ModelFacts {
  const data = JSON.parse(readFileSync(file, 'utf8')) as ModelFacts | ReleaseFacts;
  if ('model_order' in data) return data;
  return {
    model_order: data.models.map((entry) => entry.model),
    models: Object.fromEntries(
      data.models.map((entry) => [
        entry.model,
        {
          identifiers_required: entry.identifiers === 'required',
          fields: entry.fields,
          permission_codenames: entry.permissions,
        },
      ]),
    ),
  };
}

export type Definitions = Record<string, { properties: Record<string, Record<string, unknown>>; required: string[] }>;

/**
 * A field schema without descriptions and references (annotations the facts do not carry), with
 * nullable type arrays in one order.
 */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key]) => key !== 'description' && key !== 'x-references')
    .map(([key, item]) => {
      if (key === 'type' && Array.isArray(item)) return [key, [...item].sort()];
      if (key === 'properties') return [key, comparableProperties(item as Record<string, unknown>)];
      return [key, comparable(item)];
    });
  return Object.fromEntries(entries);
}

/** `properties` maps names to schemas: keep every name, even one called "description". */
function comparableProperties(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, comparable(schema)]));
}

/** Every difference between the facts and the schema's definitions, one line each; none when they agree. */
export function compareWithFacts(
  facts: ModelFacts,
  definitions: Definitions,
  service: ServiceFieldsSource = loadBlueprintSource(SCHEMA_SOURCE_DIR).serviceFields,
): string[] {
  const differences: string[] = [];
  const branches = (definitions.blueprint_entry as unknown as { oneOf: Array<{ $ref: string }> }).oneOf;
  const order = branches.map((branch) => branch.$ref.replace('#/definitions/entry_', ''));
  if (!isDeepStrictEqual(order, facts.model_order)) {
    const missing = facts.model_order.filter((model) => !order.includes(model));
    const extra = order.filter((model) => !facts.model_order.includes(model));
    differences.push(`model order differs (missing: ${missing.join(', ') || '-'}; not in the facts: ${extra.join(', ') || '-'})`); // prettier-ignore
  }
  for (const model of facts.model_order) {
    const fact = facts.models[model]!;
    const fields = definitions[`model_${model}`];
    const entry = definitions[`entry_${model}`];
    if (!fields || !entry) continue; // reported with the order
    if (!isDeepStrictEqual(Object.keys(fields.properties), Object.keys(fact.fields))) {
      differences.push(`${model}: fields ${Object.keys(fields.properties).join(', ')}; the facts: ${Object.keys(fact.fields).join(', ')}`); // prettier-ignore
    }
    for (const [field, fieldFact] of Object.entries(fact.fields)) {
      const expected = comparable(deviations[`${model}.${field}`] ?? fieldFact);
      const actual = comparable(releaseView(fields.properties[field], model, field, service, fieldFact));
      if (!isDeepStrictEqual(actual, expected)) {
        differences.push(`${model}.${field}: ${JSON.stringify(actual)}; the facts: ${JSON.stringify(expected)}`);
      }
    }
    const permissions = entry.properties.permissions as { items: { properties: { permission: { enum: string[] } } } };
    const codenames = permissions.items.properties.permission.enum;
    if (!isDeepStrictEqual(codenames, fact.permission_codenames)) {
      differences.push(`${model}: permissions ${codenames.join(', ')}; the facts: ${fact.permission_codenames.join(', ')}`); // prettier-ignore
    }
    const identifiersRequired = entry.required.includes('identifiers');
    if (identifiersRequired !== fact.identifiers_required) {
      differences.push(`${model}: identifiers ${identifiersRequired ? 'required' : 'not required'}; the facts say the opposite`); // prettier-ignore
    }
  }
  return differences;
}

function main(args: string[]): number {
  if (args.length > 1) {
    console.error('Usage: npx tsx scripts/check-model-facts.ts [FACTS.json]');
    return 2;
  }
  const factsFile = args[0] ?? RELEASE_FACTS_FILE;
  const facts = readModelFacts(factsFile);
  // Parsed from the generated text, as a consumer sees it (integer bounds beyond 2^53 included).
  const { definitions } = JSON.parse(generateBlueprintSchemaText()) as { definitions: Definitions };
  const differences = compareWithFacts(facts, definitions);
  for (const line of differences) console.log(line);
  const models = facts.model_order.length;
  if (differences.length > 0) console.error(`${differences.length} differences from ${factsFile} (${models} models)`);
  else console.error(`the schema keeps every fact of ${factsFile} (${models} models)`);
  return differences.length > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
