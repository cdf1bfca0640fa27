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

type PythonField = { field: string; kind: ExpressionKind };
const POLICY_FIELDS: readonly PythonField[] = [{ field: 'expression', kind: 'policy' }];
const MAPPING_FIELDS: readonly PythonField[] = [{ field: 'expression', kind: 'mapping' }];
const NO_FIELDS: readonly PythonField[] = [];

/**
 * The fields the service compiles as Python (docs/blueprints.md, "Expressions"): `expression` of
 * the expression policy and of every property mapping (their model names end in `mapping`), and
 * a prompt's `placeholder` and `initial_value` when its `placeholder_expression` or
 * `initial_value_expression` is true. `values` (the entry's identifiers and attrs) is only read
 * for a prompt: most entries have no Python field, and are passed without reading them.
 */
function pythonFieldsOf(model: ModelInfo, values: () => readonly BMap[]): readonly PythonField[] {
  if (model.name === 'idp_policies_expression.expressionpolicy') return POLICY_FIELDS;
  if (model.name.endsWith('mapping') && model.fieldNames.includes('expression')) return MAPPING_FIELDS;
  if (model.name !== 'idp_stages_prompt.prompt') return NO_FIELDS;
  const flagged = (flag: string): boolean =>
    values().some((map) => {
      const value = findEntry(map, flag)?.value;
      return value?.kind === 'scalar' && value.value === true && !isDeferred(value);
    });
  const fields: PythonField[] = [];
  if (flagged('placeholder_expression')) fields.push({ field: 'placeholder', kind: 'mapping' });
  if (flagged('initial_value_expression')) fields.push({ field: 'initial_value', kind: 'mapping' });
  return fields;
}

/** The entry's `identifiers` and `attrs`, where they are plain mappings. */
function valuesOf(entry: BMap): BMap[] {
  const values: BMap[] = [];
  for (const key of ['identifiers', 'attrs']) {
    const value = findEntry(entry, key)?.value;
    if (value?.kind === 'map' && !isDeferred(value)) values.push(value);
  }
  return values;
}

/** The answer for most entries, shared: no Python field (a new empty list per entry was garbage). */
const NO_EXPRESSIONS: readonly ExpressionField[] = [];

/** The Python fields of one entry (in `attrs` or `identifiers`) whose values are literal strings. */
export function expressionFields(entry: BNode, index: SchemaIndex): readonly ExpressionField[] {
  if (entry.kind !== 'map' || isDeferred(entry)) return NO_EXPRESSIONS;
  const modelNode = findEntry(entry, 'model')?.value;
  if (modelNode?.kind !== 'scalar' || isDeferred(modelNode) || typeof modelNode.value !== 'string')
    return NO_EXPRESSIONS;
  const model = index.lookupModel(modelNode.value).model;
  if (!model) return NO_EXPRESSIONS;
  let values: BMap[] | undefined;
  const read = (): BMap[] => (values ??= valuesOf(entry));
  const fields = pythonFieldsOf(model, read);
  if (fields.length === 0) return NO_EXPRESSIONS;
  const found: ExpressionField[] = [];
  for (const { field, kind } of fields) {
    for (const map of read()) {
      const node = findEntry(map, field)?.value;
      if (node?.kind === 'scalar' && !isDeferred(node) && typeof node.value === 'string') {
        found.push({ node, field, kind });
      }
    }
  }
  return found;
}
