import type { BMap, BNode, BScalar } from '../reading/blueprint-node.ts';
import { findEntry, isDeferred } from '../reading/node-queries.ts';
import type { ModelInfo, SchemaIndex } from '../schema/schema-index.ts';

/**
 * Which evaluator runs an expression, so which names it sees: an expression policy's (the policy
 * request), or a property mapping's (the user and the request; prompts use the same one).
 */
export type ExpressionKind = 'policy' | 'mapping';

/** A field of an entry that the service runs as Python, written as a literal string. */
export interface ExpressionField {
  node: BScalar;
  field: string;
  kind: ExpressionKind;
}

/**
 * The fields the service compiles as Python (docs/blueprints.md, "Expressions"): `expression` of
 * the expression policy and of every property mapping (their model names end in `mapping`), and
 * a prompt's `placeholder` and `initial_value` when its `placeholder_expression` or
 * `initial_value_expression` is true.
 */
function pythonFieldsOf(model: ModelInfo, values: readonly BMap[]): { field: string; kind: ExpressionKind }[] {
  if (model.name === 'idp_policies_expression.expressionpolicy') return [{ field: 'expression', kind: 'policy' }];
  if (model.name.endsWith('mapping') && model.fieldNames.includes('expression')) {
    return [{ field: 'expression', kind: 'mapping' }];
  }
  if (model.name !== 'idp_stages_prompt.prompt') return [];
  const flagged = (flag: string): boolean =>
    values.some((map) => {
      const value = findEntry(map, flag)?.value;
      return value?.kind === 'scalar' && value.value === true && !isDeferred(value);
    });
  const fields: { field: string; kind: ExpressionKind }[] = [];
  if (flagged('placeholder_expression')) fields.push({ field: 'placeholder', kind: 'mapping' });
  if (flagged('initial_value_expression')) fields.push({ field: 'initial_value', kind: 'mapping' });
  return fields;
}

/** The Python fields of one entry (in `attrs` or `identifiers`) whose values are literal strings. */
export function expressionFields(entry: BNode, index: SchemaIndex): ExpressionField[] {
  if (entry.kind !== 'map' || isDeferred(entry)) return [];
  const modelNode = findEntry(entry, 'model')?.value;
  if (modelNode?.kind !== 'scalar' || isDeferred(modelNode) || typeof modelNode.value !== 'string') return [];
  const model = index.lookupModel(modelNode.value).model;
  if (!model) return [];
  const values: BMap[] = [];
  for (const key of ['identifiers', 'attrs']) {
    const value = findEntry(entry, key)?.value;
    if (value?.kind === 'map' && !isDeferred(value)) values.push(value);
  }
  const found: ExpressionField[] = [];
  for (const { field, kind } of pythonFieldsOf(model, values)) {
    for (const map of values) {
      const node = findEntry(map, field)?.value;
      if (node?.kind === 'scalar' && !isDeferred(node) && typeof node.value === 'string') {
        found.push({ node, field, kind });
      }
    }
  }
  return found;
}
