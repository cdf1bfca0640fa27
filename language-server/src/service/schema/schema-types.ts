import type { BNode } from '../reading/blueprint-node.ts';
import { isDeferred } from '../reading/node-queries.ts';

/** Whether an untagged node fits a simple JSON Schema `type` (string or list). */
export function fitsType(node: BNode, type: unknown): boolean {
  return type === undefined || fitsTypeNames(node, typeNames(type));
}

/** The names of a JSON Schema `type` (string or list), to check many nodes against with `fitsTypeNames`. */
export const typeNames = (type: unknown): string[] => (Array.isArray(type) ? type.map(String) : [String(type)]);

export function fitsTypeNames(node: BNode, names: readonly string[]): boolean {
  if (isDeferred(node)) return true;
  for (const name of names) if (fitsTypeName(node, name)) return true;
  return false;
}

function fitsTypeName(node: BNode, name: string): boolean {
  if (node.kind === 'map') return name === 'object';
  if (node.kind === 'seq') return name === 'array';
  if (node.kind !== 'scalar') return true;
  if (name === 'object' || name === 'array') return false;
  const value = node.value;
  if (name === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (name === 'null') return value === null;
  return typeof value === name;
}

const typeWords: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a sequence',
  null: 'null',
};

export function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((name) => typeWords[String(name)] ?? String(name)).join(' or ');
}
