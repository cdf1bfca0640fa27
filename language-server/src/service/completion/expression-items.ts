import type { Range } from '../problem.ts';
import { expressionFields, type ExpressionField } from '../python/expression-fields.ts';
import { namesFor, policyRequestAttributes, type ExpressionName } from '../python/expression-names.ts';
import { inCodeAt } from '../python/python-syntax.ts';
import { listEntries } from '../reading/blueprint-entries.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { scalarSource } from '../reading/scalar-source.ts';
import type { SchemaIndex } from '../schema/schema-index.ts';
import type { Draft } from './completion-site.ts';

/** Items for a cursor inside an expression, and the word they replace. */
export interface ExpressionCompletion {
  items: Draft[];
  range: Range;
  typed: string;
}

const isWordChar = (char: string | undefined): boolean => char !== undefined && /\w/.test(char);

/**
 * Completion inside an expression the service runs as Python: the names it gives every expression
 * of that kind (`ak_*` helpers, `request`, `user`...), and after `request.` in a policy the
 * request's attributes. Nothing inside a Python string or comment. Undefined when the cursor is
 * not in an expression, so that the blueprint's own completion answers.
 */
export function expressionCompletion(
  text: string,
  root: BNode | undefined,
  offset: number,
  index: SchemaIndex,
): ExpressionCompletion | undefined {
  const field = fieldAt(text, root, offset, index);
  if (!field) return undefined;
  let start = offset;
  while (isWordChar(text[start - 1])) start--;
  let end = offset;
  while (isWordChar(text[end])) end++;
  const typed = text.slice(start, offset);
  const range: Range = [start, end];
  const none = { items: [], range, typed };
  if (/^\d/.test(typed)) return none;
  const source = scalarSource(text, field.node);
  if (source) {
    // The value offset of the cursor: the first character written at or after it.
    let at = source.offsets.findIndex((written) => written >= offset);
    if (at < 0) at = source.value.length;
    if (inCodeAt(source.value, at) === false) return none;
  }
  let names: readonly ExpressionName[] = namesFor(field.kind);
  if (text[start - 1] === '.') {
    const owner = /(\w+)\s*\.$/.exec(text.slice(Math.max(0, start - 64), start))?.[1];
    if (owner !== 'request' || field.kind !== 'policy') return none;
    names = policyRequestAttributes;
  }
  const items = names.map((name): Draft => ({
    label: name.name,
    kind: name.kind === 'function' ? 'function' : 'variable',
    insertText: name.name,
    snippet: false,
    detail: name.signature ? `${name.name}${name.signature}` : name.name,
    documentation: name.documentation,
  }));
  return { items, range, typed };
}

/** The expression field whose text holds the cursor (or the blank lines a block scalar may still grow into). */
function fieldAt(
  text: string,
  root: BNode | undefined,
  offset: number,
  index: SchemaIndex,
): ExpressionField | undefined {
  const entry = listEntries(root).find(
    (each) => each.node.start <= offset && offset <= each.node.end + lineRest(text, each.node.end),
  );
  if (!entry) return undefined;
  return expressionFields(entry.node, index).find(({ node }) => {
    const start = node.tagRange ? node.tagRange[1] : node.start;
    if (offset > start && offset <= node.end) return true;
    // Past a block's last line: blank lines, the cursor indented like the block's lines.
    let header = start;
    while (text[header] === ' ' || text[header] === '\t') header++;
    if (offset <= node.end || (text[header] !== '|' && text[header] !== '>')) return false;
    const between = text.slice(node.end, offset);
    if (!/^[ \t]*\n[\s]*$/.test(between)) return false;
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    const firstLine = text.indexOf('\n', start) + 1;
    let indent = 0;
    while (text[firstLine + indent] === ' ') indent++;
    return offset - lineStart >= indent && indent > 0;
  });
}

/** How far the blank lines after `end` go (a block scalar's last line may be followed by the cursor's). */
function lineRest(text: string, end: number): number {
  const rest = /^[ \t]*(\n[ \t]*)*/.exec(text.slice(end, end + 4096))![0];
  return rest.length;
}
