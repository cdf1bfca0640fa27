import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateBlueprint } from '../../bench/blueprint-generator.ts';
import type { BNode } from '../../language-server/src/service/reading/blueprint-node.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import {
  compileAjvFieldValidator,
  compileFieldValidator,
  formatPlugin,
  type FieldValidator,
} from '../../language-server/src/service/schema/field-validator.ts';
import { randomSource } from '../../server/demo/random-source.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as { definitions: Record<string, Record<string, unknown>> };

const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
formatPlugin()(ajv, undefined);

/** What a validator says about a value, as sorted `keyword pointer -> origin range` lines. */
function verdict(validate: FieldValidator, node: BNode): string[] {
  const report = validate(node);
  if (!report) return [];
  return report.errors
    .map((error) => {
      const extra = (error.params as { additionalProperty?: string }).additionalProperty;
      const at = extra === undefined ? error.instancePath : `${error.instancePath}/${extra}`;
      const origin = report.origins.get(at);
      return `${error.keyword} ${error.instancePath} -> ${origin ? (origin.key ?? origin.node).range.join('-') : '?'}`;
    })
    .sort();
}

/** attrs of every entry of a text, with their model. */
function attrsOf(text: string): { model: string; attrs: BNode }[] {
  const root = parseBlueprint(text).root;
  const found: { model: string; attrs: BNode }[] = [];
  const visit = (node: BNode) => {
    if (node.kind === 'seq') node.items.forEach(visit);
    if (node.kind !== 'map') return;
    const model = node.entries.find((entry) => entry.key.kind === 'scalar' && entry.key.value === 'model')?.value;
    const attrs = node.entries.find((entry) => entry.key.kind === 'scalar' && entry.key.value === 'attrs')?.value;
    if (model?.kind === 'scalar' && typeof model.value === 'string' && attrs) found.push({ model: model.value, attrs });
    else for (const entry of node.entries) visit(entry.value);
  };
  if (root) visit(root);
  return found;
}

/** Wrong values of every kind, put in place of a field's value. */
const wrongValues = [
  '""',
  '"not a uuid"',
  '-1',
  '1000000',
  '3.5',
  'true',
  'null',
  '[1, "x"]',
  '{k: v}',
  '"x"',
  '!KeyOf ref',
];

describe('the compiled field validator agrees with Ajv', () => {
  it('on generated entries of every model, valid and with one field made wrong', () => {
    const { text } = generateBlueprint(schema, 600);
    const random = randomSource(31);
    const validators = new Map<string, [FieldValidator, FieldValidator]>();
    const pair = (model: string) => {
      let found = validators.get(model);
      if (!found) {
        const definition = schema.definitions[`model_${model}`]!;
        found = [
          compileFieldValidator(definition, schema, () => ajv),
          compileAjvFieldValidator(definition, schema, ajv),
        ];
        validators.set(model, found);
      }
      return found;
    };
    let disagreements = 0;
    let invalid = 0;
    const lines = text.split('\n');
    // Each entry once as generated, then with one `attrs` field value replaced by a wrong one.
    const mutated = lines.map((line) => {
      const field = /^(\s{6,}[a-z_]+): (.+)$/.exec(line);
      return field && random.next() < 0.3 ? `${field[1]}: ${random.pick(wrongValues)}` : line;
    });
    for (const source of [text, mutated.join('\n')]) {
      for (const { model, attrs } of attrsOf(source)) {
        const [ours, theirs] = pair(model);
        const expected = verdict(theirs, attrs);
        if (expected.length > 0) invalid++;
        const actual = verdict(ours, attrs);
        if (actual.join('\n') !== expected.join('\n')) {
          disagreements++;
          if (disagreements < 4) expect(actual, `${model}`).toEqual(expected);
        }
      }
    }
    expect(disagreements).toBe(0);
    // The comparison saw many invalid values, not only valid ones.
    expect(invalid).toBeGreaterThan(100);
  });

  it('leaves a definition with keywords it does not implement to Ajv', () => {
    const definition = { type: 'object', properties: { size: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } };
    const validate = compileFieldValidator(definition, {}, () => ajv);
    const node = parseBlueprint('size: [1]\n').root!;
    expect(validate(node)?.errors.map((error) => error.keyword)).toContain('anyOf');
    expect(validate(parseBlueprint('size: 2\n').root!)).toBeUndefined();
  });

  it('compiles every model of the schema itself: its x-references only annotate', () => {
    const noAjv = (): never => {
      throw new Error('a model was left to Ajv');
    };
    const binding = schema.definitions['model_idp_flows.flowstagebinding']!;
    expect(JSON.stringify(binding)).toContain('x-references');
    for (const [name, definition] of Object.entries(schema.definitions)) {
      if (name.startsWith('model_')) compileFieldValidator(definition, schema, noAjv);
    }
    const validate = compileFieldValidator(binding, schema, noAjv);
    expect(validate(parseBlueprint('target: 7\n').root!)?.errors.map((error) => error.keyword)).toEqual(['type']);
  });
});
