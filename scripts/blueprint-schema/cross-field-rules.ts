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
    const modelProperties = fieldsByModel.get(rule.model)?.properties as SchemaObject | undefined;
    if (!modelProperties) throw new SourceError(CROSS_FIELD_RULES_FILE, where, 'no such model in models.yaml');
    const properties = rule.each ? itemProperties(modelProperties, rule.model, rule.each, where) : modelProperties;
    const field = (name: string): SchemaObject => {
      const schema = properties[name];
      if (!schema)
        throw new SourceError(
          CROSS_FIELD_RULES_FILE,
          where,
          `${rule.model}${rule.each ? `.${rule.each}[]` : ''} has no field "${name}"`,
        );
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

/** The properties of the mapping items of the list field `each`, whose fields a rule with `each` names. */
function itemProperties(properties: SchemaObject, model: string, each: string, where: string): SchemaObject {
  const items = (properties[each] as SchemaObject | undefined)?.items as SchemaObject | undefined;
  if (!items?.properties) {
    throw new SourceError(CROSS_FIELD_RULES_FILE, where, `${model}.${each} is no list of mappings`);
  }
  return items.properties as SchemaObject;
}

function written(rule: CrossFieldRule): SchemaObject {
  const row: SchemaObject = {};
  if (rule.each) row.each = rule.each;
  if (rule.when) row.when = rule.when;
  if (rule.defaults) row.defaults = rule.defaults;
  if (rule.whenSet) row.when_set = rule.whenSet;
  if (rule.unlessSet) row.unless_set = rule.unlessSet;
  row[rule.check] = rule.fields;
  row.message = rule.message;
  row.service = rule.service;
  return row;
}
