import { CROSS_FIELD_RULES_FILE, SourceError, type BlueprintSource, type CrossFieldRule } from './blueprint-source.ts';
import type { SchemaObject, SchemaValue } from './schema-json.ts';

/** The keyword on an entry definition that lists its model's cross-field rules. */
export const CROSS_FIELD_RULES_KEYWORD = 'x-cross-field-rules';

/**
 * The rows of cross-field-rules.yaml by model, as the schema writes them (snake_case keys, as in the
 * source). Stops the generator on a model or field models.yaml does not have, and on a `when` or
 * `defaults` value that is none of the field's choices.
 */
export function crossFieldRulesByModel(
  source: BlueprintSource,
  fieldsByModel: ReadonlyMap<string, SchemaObject>,
): Map<string, SchemaObject[]> {
  const byModel = new Map<string, SchemaObject[]>();
  source.crossFieldRules.forEach((rule, index) => {
    const where = `${rule.model}[${index}]`;
    const properties = fieldsByModel.get(rule.model)?.properties as SchemaObject | undefined;
    if (!properties) throw new SourceError(CROSS_FIELD_RULES_FILE, where, 'no such model in models.yaml');
    const field = (name: string): SchemaObject => {
      const schema = properties[name];
      if (!schema) throw new SourceError(CROSS_FIELD_RULES_FILE, where, `${rule.model} has no field "${name}"`);
      return schema as SchemaObject;
    };
    const choice = (name: string, value: SchemaValue) => {
      const choices = field(name).enum;
      if (Array.isArray(choices) && !choices.includes(value)) {
        throw new SourceError(
          CROSS_FIELD_RULES_FILE,
          where,
          `${JSON.stringify(value)} is none of the values of ${name}`,
        );
      }
    };
    for (const [name, values] of Object.entries(rule.when ?? {})) for (const value of values) choice(name, value);
    for (const [name, value] of Object.entries(rule.defaults ?? {})) choice(name, value);
    for (const name of [...rule.fields, ...(rule.unlessSet ?? []), ...(rule.whenSet ? [rule.whenSet] : [])])
      field(name);
    const rules = byModel.get(rule.model) ?? [];
    rules.push(written(rule));
    byModel.set(rule.model, rules);
  });
  return byModel;
}

function written(rule: CrossFieldRule): SchemaObject {
  const row: SchemaObject = {};
  if (rule.when) row.when = rule.when;
  if (rule.defaults) row.defaults = rule.defaults;
  if (rule.whenSet) row.when_set = rule.whenSet;
  if (rule.unlessSet) row.unless_set = rule.unlessSet;
  row[rule.check] = rule.fields;
  row.message = rule.message;
  row.service = rule.service;
  return row;
}
