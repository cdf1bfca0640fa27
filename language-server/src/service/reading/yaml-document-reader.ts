import {
  Composer,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Parser,
  type Document,
  type DocumentOptions,
  type Node,
  type ParseOptions,
  type SchemaOptions,
  type Tags,
  type YAMLError,
} from 'yaml';
import { problem, syntaxAndTagCodes, type Problem, type Range } from '../problem.ts';
import { blueprintTags } from '../tag-table.ts';
import {
  aliasNode,
  mapEntry,
  mapNode,
  scalarNode,
  seqNode,
  type BEntry,
  type BNode,
  type ScalarValue,
} from './blueprint-node.ts';
import { reportDuplicateKeys } from './yaml-duplicate-keys.ts';

export interface ReadResult {
  root: BNode | undefined;
  problems: Problem[];
}

/**
 * Every blueprint tag is registered for scalars, sequences and mappings, so the YAML parser never
 * warns about them; whether a tag fits its node is checked by `checks/tag-check.ts` with better messages.
 * Tagged scalars keep their source text, as the service's loader sees it.
 */
const customTags: Tags = blueprintTags.flatMap(({ name }) => [
  { tag: name, resolve: (source: string) => source },
  { tag: name, collection: 'seq' as const, resolve: (node: unknown) => node },
  { tag: name, collection: 'map' as const, resolve: (node: unknown) => node },
]);

/** YAML 1.1 like the service's loader (PyYAML): `yes`/`no` are booleans, duplicate keys are allowed. */
const yamlOptions: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags,
  keepSourceTokens: true,
  uniqueKeys: false,
  prettyErrors: false,
};

const codes = syntaxAndTagCodes;

/**
 * Reads any text with the `yaml` package (YAML 1.1, like the service) into BNodes, with every
 * syntax error it finds. JSON is read as YAML (it is a subset); `format` only words the messages.
 */
export function readYamlDocument(text: string, format: 'yaml' | 'json' = 'yaml'): ReadResult {
  const problems: Problem[] = [];
  try {
    const tagStarts: number[] = [];
    const tagEnds: number[] = [];
    const tokens = [...new Parser().parse(text)];
    collectTags(tokens, tagStarts, tagEnds);
    const documents = [...new Composer(yamlOptions).compose(tokens, true, text.length)];
    const document = documents[0];
    for (const extra of documents.slice(1)) {
      const start = clamp(extra.range[0], text);
      const kind = format === 'json' ? 'JSON value' : 'YAML document';
      problems.push(
        problem(codes, 'yaml-syntax', [start, text.length], `A blueprint is a single ${kind}; remove this one.`),
      );
    }
    for (const doc of documents) {
      for (const error of doc.errors) problems.push(fromYamlError(error, text, 'error'));
      for (const warning of doc.warnings) {
        if (!/^Unresolved tag:/.test(warning.message)) problems.push(fromYamlError(warning, text, 'warning'));
      }
    }
    const root = document ? convertDocument(document, text, tagStarts, tagEnds, problems) : undefined;
    return { root, problems };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    problems.push(problem(codes, 'internal-error', [0, text.length], `The blueprint could not be read: ${message}`));
    return { root: undefined, problems };
  }
}

function clamp(offset: number, text: string): number {
  return Math.max(0, Math.min(Number.isFinite(offset) ? offset : 0, text.length));
}

function fromYamlError(error: YAMLError, text: string, kind: 'error' | 'warning'): Problem {
  const start = clamp(error.pos[0], text);
  const range: Range = [start, Math.max(start, clamp(error.pos[1], text))];
  return problem(codes, kind === 'error' ? 'yaml-syntax' : 'yaml-warning', range, error.message);
}

/** The fields of CST tokens that can hold (tokens holding) tag tokens. */
const cstFields = ['start', 'key', 'sep', 'value', 'items', 'end', 'props'] as const;

/** Tag tokens of the concrete syntax tree, in text order (walked without recursion). */
function collectTags(tokens: readonly unknown[], starts: number[], ends: number[]): void {
  const found: [number, number][] = [];
  const stack: unknown[] = [...tokens];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      for (const element of item) if (element !== null && typeof element === 'object') stack.push(element);
    } else if (item !== null && typeof item === 'object') {
      const token = item as Record<string, unknown>;
      if (token.type === 'tag' && typeof token.offset === 'number' && typeof token.source === 'string') {
        found.push([token.offset, token.offset + token.source.length]);
      }
      for (const field of cstFields) {
        const value = token[field];
        if (value !== null && typeof value === 'object') stack.push(value);
      }
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  for (const [start, end] of found) {
    starts.push(start);
    ends.push(end);
  }
}

function convertDocument(
  document: Document.Parsed,
  text: string,
  tagStarts: number[],
  tagEnds: number[],
  problems: Problem[],
) {
  /** The last tag token that starts before `offset`: the tag written in front of a node's value. */
  const tagBefore = (offset: number): Range | undefined => {
    let low = 0;
    let high = tagStarts.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (tagStarts[mid]! < offset) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    return found < 0 ? undefined : [tagStarts[found]!, tagEnds[found]!];
  };

  const trimmedEnd = (start: number, end: number): number => {
    let result = clamp(end, text);
    while (result > start && /\s/.test(text[result - 1]!)) result--;
    return result;
  };

  const nullAt = (offset: number): BNode => scalarNode(null, offset, offset);

  // Explicit stack: deeply nested input must not overflow the call stack.
  const convert = (top: Node): BNode => {
    const results = new Map<Node, BNode>();
    const pending: [Node, boolean][] = [[top, false]];
    while (pending.length > 0) {
      const [node, childrenDone] = pending.pop()!;
      if (!childrenDone && (isMap(node) || isSeq(node))) {
        pending.push([node, true]);
        const children = isSeq(node) ? node.items : node.items.flatMap((pair) => [pair.key, pair.value]);
        for (const child of children) if (child && typeof child === 'object') pending.push([child as Node, false]);
        continue;
      }
      results.set(node, build(node, results));
    }
    return results.get(top)!;
  };

  const build = (node: Node, done: Map<Node, BNode>): BNode => {
    const valueStart = clamp(node.range?.[0] ?? 0, text);
    const tagRange = node.tag && !node.tag.startsWith('tag:yaml.org,2002:') ? tagBefore(valueStart + 1) : undefined;
    const start = tagRange && tagRange[0] < valueStart ? tagRange[0] : valueStart;
    const end = Math.max(start, trimmedEnd(valueStart, node.range?.[1] ?? valueStart));
    const extras = { tag: node.tag || undefined, tagRange, anchor: node.anchor || undefined };
    if (isScalar(node)) return scalarNode(scalarValue(node.value, node.source), start, end, extras);
    if (isAlias(node)) return aliasNode(node.source, start, end, extras);
    if (isSeq(node)) {
      const items = node.items.map((item) => done.get(item as Node) ?? nullAt(end));
      return seqNode(items, node.flow === true, start, collectionEnd(start, end, items), extras);
    }
    if (isMap(node)) {
      const entries = node.items.map((pair): BEntry => {
        const key = (pair.key ? done.get(pair.key as Node) : undefined) ?? nullAt(start);
        const value = (pair.value ? done.get(pair.value as Node) : undefined) ?? nullAt(key.end);
        return mapEntry(key, value);
      });
      reportDuplicateKeys(entries, problems);
      return mapNode(entries, node.flow === true, start, collectionEnd(start, end, entries), extras);
    }
    return scalarNode(null, start, end, extras);
  };

  /** A block collection ends where its last item ends (not after trailing comments). */
  const collectionEnd = (start: number, end: number, children: readonly { readonly range: Range }[]): number => {
    if (text[end - 1] === ']' || text[end - 1] === '}') return end;
    const last = children[children.length - 1];
    return last ? Math.max(start, last.range[1]) : end;
  };

  return document.contents ? convert(document.contents) : undefined;
}

function scalarValue(value: unknown, source: unknown): ScalarValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return typeof source === 'string' ? source : String(value);
}
