/**
 * A deterministic, realistic blueprint of N entries built from the blueprint schema itself: models,
 * field names and field types come from `definitions`, so every plain value is valid for its field.
 * Uuid fields point at earlier entries with `!KeyOf`; some values are `!Context`, `!Env`, `!Format`,
 * `!If` or `!Find`; entries are split into a few named groups.
 */
import { randomSource } from '../server/demo/random-source.ts';

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  /** The service's validator behind `pattern`, with a value that keeps it. */
  'x-rule'?: { example: string };
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: unknown;
  required?: string[];
};

/** A rule across an entry's fields (`x-cross-field-rules` of an entry definition). */
type CrossFieldRule = Partial<Record<'exactly_one_of' | 'at_least_one_of' | 'requires' | 'requires_keys', string[]>> & {
  when?: Record<string, unknown[]>;
  defaults?: Record<string, unknown>;
  when_set?: string;
};

interface ModelInfo {
  name: string;
  fields: [string, JsonSchema][];
  stringFields: string[];
  permissions: string[];
  rules: CrossFieldRule[];
}

const WORDS = [
  'alpha', 'bravo', 'cedar', 'delta', 'ember', 'falcon', 'granite', 'harbor', 'iris', 'juniper',
  'kestrel', 'lumen', 'maple', 'nova', 'orchid', 'pine', 'quartz', 'raven', 'sierra', 'tundra',
]; // prettier-ignore

export function modelsFromSchema(schema: { definitions: Record<string, JsonSchema> }): ModelInfo[] {
  const models: ModelInfo[] = [];
  for (const [key, entry] of Object.entries(schema.definitions)) {
    if (!key.startsWith('entry_')) continue;
    const name = key.slice('entry_'.length);
    // Meta models have rules of their own (attrs.identifiers, instances): leave them to the corpus.
    if (name.startsWith('idp_blueprints.')) continue;
    const model = schema.definitions[`model_${name}`];
    const fields = Object.entries(model?.properties ?? {}).filter(([, field]) => simpleField(field));
    const stringFields = fields
      .filter(([, field]) => baseType(field) === 'string' && !field.enum && !field.format && !field.pattern)
      .map(([fieldName]) => fieldName);
    if (stringFields.length === 0 || fields.length < 2) continue;
    const permissionEnum = entry.properties?.permissions?.items?.properties?.permission?.enum ?? [];
    const rules = (entry as { 'x-cross-field-rules'?: CrossFieldRule[] })['x-cross-field-rules'] ?? [];
    models.push({ name, fields, stringFields, permissions: permissionEnum.map(String), rules });
  }
  return models;
}

const compiledPatterns = new Map<string, RegExp>();
const matches = (pattern: string, value: string): boolean => {
  let expression = compiledPatterns.get(pattern);
  if (!expression) compiledPatterns.set(pattern, (expression = new RegExp(pattern, 'u')));
  return expression.test(value);
};

function baseType(field: JsonSchema): string | undefined {
  return Array.isArray(field.type) ? field.type.find((type) => type !== 'null') : field.type;
}

function simpleField(field: JsonSchema): boolean {
  const type = baseType(field);
  if (type === 'array')
    return field.items !== undefined && !field.items.properties && baseType(field.items) !== 'object';
  if (type === 'object') return field.additionalProperties === true && !field.properties;
  return type === 'string' || type === 'integer' || type === 'number' || type === 'boolean';
}

export interface GeneratedBlueprint {
  text: string;
  entries: number;
  lines: number;
  /** 0-based line numbers of plain quoted string values, candidates for the one-line edit. */
  editableLines: number[];
}

export function generateBlueprint(
  schema: { definitions: Record<string, JsonSchema> },
  entryCount: number,
  seed = 20261122,
): GeneratedBlueprint {
  const random = randomSource(seed);
  const models = modelsFromSchema(schema);
  const int = (min: number, max: number) => Math.floor(random.between(min, max + 1));
  const words = (count: number) => Array.from({ length: count }, () => random.pick(WORDS)).join(' ');
  const quote = (value: string) => JSON.stringify(value);
  const referable: string[] = []; // ids of earlier entries without conditions and not absent
  const hex = (length: number) => Array.from({ length }, () => '0123456789abcdef'[int(0, 15)]).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

  const stringValue = (field: JsonSchema, n: number, plainOnly: boolean): string => {
    const max = field.maxLength ?? 200;
    const plain = () => quote(`${words(int(1, 3))} ${n}`.slice(0, max).trim() || 'x');
    if (plainOnly) return plain();
    const roll = random.next();
    if (roll < 0.04) return `!Context ${random.pick(['domain', 'tenant', 'flows/prefix', 'branding.title'])}`;
    if (roll < 0.07) return `!Env [${random.pick(['IDP_DOMAIN', 'IDP_TITLE', 'IDP_REGION'])}, ${quote(words(1))}]`;
    if (roll < 0.1) return `!Format ["%s-%s", ${quote(words(1))}, !Context tenant]`;
    if (roll < 0.12) return `!If [!Context enable_extras, ${quote(words(2))}, ${quote(words(1))}]`;
    return plain();
  };

  const value = (field: JsonSchema, n: number, plainOnly = false): string => {
    const enumValues = field.enum?.filter((item) => item !== null);
    if (enumValues && enumValues.length > 0) {
      // A choice listed as a string and a number (a TOTP stage's digits) is written either way.
      const picked = random.pick(enumValues);
      return typeof picked === 'string' ? quote(picked) : String(picked);
    }
    const type = baseType(field);
    switch (type) {
      case 'boolean':
        return random.chance(0.5) ? 'true' : 'false';
      case 'integer': {
        const min = Math.max(field.minimum ?? 0, -1000);
        const max = Math.min(field.maximum ?? 10000, 10000);
        return String(int(min, Math.max(min, max)));
      }
      case 'number':
        return (random.between(0, 100) | 0) + '.5';
      case 'array': {
        const items = field.items!;
        const count = int(1, 3);
        const values = Array.from({ length: count }, () => value(items, n, true));
        return `[${[...new Set(values)].join(', ')}]`;
      }
      case 'object':
        return `{ ${random.pick(WORDS)}: ${quote(words(1))}, weight: ${int(1, 9)} }`;
      default:
        break;
    }
    switch (field.format) {
      case 'uuid':
        if (referable.length > 0 && random.chance(0.7)) {
          return `!KeyOf ${referable[Math.max(0, referable.length - 1 - int(0, 200))]}`;
        }
        if (!plainOnly && random.chance(0.3)) {
          const target = random.pick(models);
          return `!Find [${target.name}, [${random.pick(target.stringFields)}, ${quote(words(1))}]]`;
        }
        return quote(uuid());
      case 'date-time':
        return quote(new Date(Date.UTC(2026, 0, 1) + int(0, 300) * 86_400_000).toISOString());
      case 'email':
        return quote(`${random.pick(WORDS)}.${n}@example.com`);
      case undefined:
        break;
      default:
        return quote(`${random.pick(WORDS)}-${n}`);
    }
    if (field.pattern) {
      const word = `${random.pick(WORDS)}-${n}`;
      // A value the pattern refuses (a duration, a URL) takes the example of its rule.
      return quote(matches(field.pattern, word) ? word : (field['x-rule']?.example ?? word));
    }
    return stringValue(field, n, plainOnly);
  };

  const pythonFields = new Set(['expression', 'placeholder', 'initial_value']);
  const pythonValue = (n: number): string =>
    random.chance(0.5)
      ? quote(`return ${quote(`${random.pick(WORDS)}-${n}`)}`)
      : `|\n          groups = [group.name for group in request.user.groups.all()]\n          return ${quote(random.pick(WORDS))} in groups`;

  const lines: string[] = [
    'version: 1',
    'metadata:',
    `  name: Generated benchmark blueprint (${entryCount} entries)`,
    '  labels:',
    '    blueprints.idp.example/description: "Synthetic blueprint for bench/blueprints.bench.ts"',
    '    blueprints.idp.example/generated: "true"',
    '    team: "identity"',
    'context:',
    '  domain: idp.example',
    '  tenant: acme',
    '  flows/prefix: default',
    '  branding.title: Acme',
    '  enable_extras: true',
    'entries:',
  ];
  const editableLines: number[] = [];
  const groups = ['directory', 'flows', 'providers', 'policies'];
  const perGroup = Math.ceil(entryCount / groups.length);
  for (let n = 0; n < entryCount; n++) {
    if (n % perGroup === 0) lines.push(`  ${groups[n / perGroup]}:`);
    const model = random.pick(models);
    const hasId = random.chance(0.85);
    const conditional = random.chance(0.05);
    const id = `${model.name.split('.')[1]}-${n}`;
    lines.push(`    - model: ${model.name}`);
    if (hasId) lines.push(`      id: ${id}`);
    if (random.chance(0.3)) lines.push(`      state: ${random.pick(['present', 'created'])}`);
    if (conditional) lines.push('      conditions:', '        - !Context enable_extras');
    const identifierField = random.pick(model.stringFields);
    const identifier = `${words(2)} ${n}`;
    const identifierText = quote(pythonFields.has(identifierField) ? `return ${quote(identifier)}` : identifier);
    lines.push('      identifiers:', `        ${identifierField}: ${identifierText}`);
    lines.push('      attrs:');
    const attrCount = Math.min(model.fields.length, int(3, 8));
    const chosen = new Set<string>();
    while (chosen.size < attrCount) chosen.add(random.pick(model.fields)[0]);
    for (const rule of model.rules) keepRule(rule, chosen);
    for (const [fieldName, field] of model.fields) {
      if (!chosen.has(fieldName) || fieldName === identifierField) continue;
      // Fields the service runs as Python hold Python, as in a real blueprint.
      const text = pythonFields.has(fieldName) ? pythonValue(n) : value(field, n);
      if (/^"[^"]*"$/.test(text)) editableLines.push(lines.length);
      const [head, ...blockLines] = text.split('\n');
      lines.push(`        ${fieldName}: ${head}`, ...blockLines);
    }
    if (model.permissions.length > 0 && random.chance(0.05)) {
      lines.push(
        '      permissions:',
        `        - permission: ${random.pick(model.permissions)}`,
        `          user: ${int(1, 50)}`,
      );
    }
    if (hasId && !conditional) referable.push(id);
  }
  const text = lines.join('\n') + '\n';
  return { text, entries: entryCount, lines: lines.length, editableLines };
}

/**
 * Chooses the fields of an entry so that a cross-field rule holds: the fields a condition reads are
 * left out (the rule applies only where the service's default for them makes it), and the fields
 * the rule then wants are written (every value written is set: non-empty, or a tag).
 */
function keepRule(rule: CrossFieldRule, chosen: Set<string>): void {
  const conditionFields = [...Object.keys(rule.when ?? {}), ...(rule.when_set ? [rule.when_set] : [])];
  for (const field of conditionFields) chosen.delete(field);
  const applies =
    rule.when_set === undefined &&
    Object.entries(rule.when ?? {}).every(([field, values]) => values.includes(rule.defaults?.[field]));
  if (!applies) return;
  if (rule.exactly_one_of) for (const field of rule.exactly_one_of.slice(1)) chosen.delete(field);
  const wanted = rule.requires ?? rule.requires_keys ?? (rule.exactly_one_of ?? rule.at_least_one_of ?? []).slice(0, 1);
  for (const field of wanted) chosen.add(field);
}

/** The text with the quoted value on one line (near the middle) replaced. */
export function editOneLine(generated: GeneratedBlueprint, variant: number): { text: string; line: number } {
  const candidates = generated.editableLines;
  const line = candidates[Math.floor(candidates.length / 2) + variant]!;
  const lines = generated.text.split('\n');
  lines[line] = lines[line]!.replace(/"[^"]*"$/, `"edited value ${variant}"`);
  return { text: lines.join('\n'), line };
}

/**
 * The text with `share` of its lines (chosen at random, at least one) changed by one character:
 * one character other than a space replaced by a letter, as a typo. The file of many mistakes
 * that an editor re-validates on every keystroke.
 */
export function withMistakes(generated: GeneratedBlueprint, share: number, seed = 20261127): string {
  const random = randomSource(seed);
  const lines = generated.text.split('\n');
  const count = Math.max(1, Math.round(lines.length * share));
  const changed = new Set<number>();
  while (changed.size < count) {
    const line = Math.floor(random.next() * lines.length);
    const text = lines[line]!;
    const positions = [...text].flatMap((ch, at) => (ch === ' ' ? [] : [at]));
    if (positions.length === 0 || changed.has(line)) continue;
    const at = random.pick(positions);
    const letters = 'abcdefghijklmnopqrstuvwxyz'.replace(text[at]!, '');
    lines[line] = text.slice(0, at) + random.pick([...letters]) + text.slice(at + 1);
    changed.add(line);
  }
  return lines.join('\n');
}
