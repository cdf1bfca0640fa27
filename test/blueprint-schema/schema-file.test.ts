import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import {
  SCHEMA_FILE,
  SCHEMA_SOURCE_DIR,
  generateBlueprintSchemaText,
} from '../../scripts/blueprint-schema/generate.ts';

describe('schemas/blueprint.schema.json', () => {
  it('is what the source generates (run `npm run generate:schema` after editing schemas/source)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(generateBlueprintSchemaText());
  });

  it('comes out the same on every run', () => {
    expect(generateBlueprintSchemaText()).toBe(generateBlueprintSchemaText());
  });

  it('is 2-space JSON with a trailing newline', () => {
    const text = readFileSync(SCHEMA_FILE, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^ {2}"\$schema"/);
  });
});

describe('schemas/source', () => {
  const source = loadBlueprintSource(SCHEMA_SOURCE_DIR);

  it('describes every field name that 10 or more models use', () => {
    const uses = new Map<string, number>();
    for (const model of source.models) {
      for (const [field] of model.fields) uses.set(field, (uses.get(field) ?? 0) + 1);
    }
    const common = [...uses].filter(([, count]) => count >= 10).map(([field]) => field);
    expect(common.length).toBeGreaterThan(0);
    expect(common.filter((field) => !source.fieldDescriptions.has(field))).toEqual([]);
  });

  it('gives every state value a meaning', () => {
    expect(source.states.values.map(([value]) => value)).toEqual(['absent', 'created', 'must_created', 'present']);
    expect(source.states.default).toBe('present');
  });

  it('has no unused value list', () => {
    const text = readFileSync(`${SCHEMA_SOURCE_DIR}/models.yaml`, 'utf8');
    const unused = [...source.valueLists.keys()].filter((name) => !text.includes(`@${name}`));
    expect(unused).toEqual([]);
  });
});
