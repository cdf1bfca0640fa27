import type { BNode, BSeq } from './blueprint-node.ts';
import { closest } from './edit-distance.ts';
import { problem, syntaxAndTagCodes, withSuggestions, type Problem, type Range } from './problem.ts';
import { arityAllows, blueprintTags, conditionModes, enumerateOutputs, tagsByName, type TagInfo } from './tag-table.ts';

export { blueprintTags, conditionModes, enumerateOutputs, tagsByName, type TagInfo } from './tag-table.ts';

const codes = syntaxAndTagCodes;
const tagNames = blueprintTags.map((tag) => tag.name);

/** One enclosing `!Enumerate`: whether the node being checked is inside its body (third item). */
interface EnumerateFrame {
  inBody: boolean;
}

const kindWords = { scalar: 'a scalar', seq: 'a sequence', map: 'a mapping', alias: 'an alias' } as const;

/**
 * Checks every custom tag in the tree: known name, node kind, item count, `!Condition` mode,
 * `!Enumerate` output kind and `!Index`/`!Value` depth. Never throws.
 *
 * Depth follows the service: an `!Enumerate` is the innermost context for ALL its items, so
 * `!Value 1` in the iterable of an inner `!Enumerate` reaches the outer one; but a depth that
 * lands on an `!Enumerate` from its iterable (or output kind) finds no current item: an error.
 * `skip` leaves out subtrees checked elsewhere (entries, whose checks the language service keeps).
 */
export function checkTags(root: BNode | undefined, skip?: (node: BNode) => boolean): Problem[] {
  const problems: Problem[] = [];
  if (!root) return problems;
  // Two parallel stacks: no pair is allocated per node.
  const nodes: BNode[] = [root];
  const frames: (readonly EnumerateFrame[])[] = [[]];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const enumerates = frames.pop()!;
    if (skip?.(node)) continue;
    const info = node.tag ? checkOneTag(node, enumerates, problems) : undefined;
    if (node.kind === 'seq') {
      const enumerate = info?.name === '!Enumerate';
      for (let i = node.items.length - 1; i >= 0; i--) {
        nodes.push(node.items[i]!);
        frames.push(enumerate ? [...enumerates, { inBody: i >= 2 }] : enumerates);
      }
    } else if (node.kind === 'map') {
      for (let i = node.entries.length - 1; i >= 0; i--) {
        nodes.push(node.entries[i]!.value, node.entries[i]!.key);
        frames.push(enumerates, enumerates);
      }
    }
  }
  return problems;
}

/** Reports the problems of one tagged node; returns the tag's info when the tag is known. */
function checkOneTag(node: BNode, enumerates: readonly EnumerateFrame[], problems: Problem[]): TagInfo | undefined {
  const tag = node.tag!;
  // Standard YAML tags (`!!str`, resolved to tag:yaml.org,2002:...) and the non-specific `!` are not ours.
  if (!tag.startsWith('!') || tag === '!') return undefined;
  const info = tagsByName.get(tag);
  if (!info) {
    const suggestion = closest(tag, tagNames, 2);
    const advice = suggestion ? ` Did you mean ${suggestion}?` : ` Blueprint tags are ${tagNames.join(', ')}.`;
    const range = node.tagRange ?? node.range;
    problems.push(
      withSuggestions(problem(codes, 'tag-unknown', range, `Unknown tag ${tag}.${advice}`), range, [suggestion]),
    );
    return undefined;
  }
  if (node.kind === 'alias') return info;
  if (!(info.kinds as readonly string[]).includes(node.kind)) {
    const accepted = info.kinds.map((kind) => kindWords[kind]).join(' or ');
    const message = `${tag} takes ${accepted} (${info.forms.join(' or ')}), not ${kindWords[node.kind]}.`;
    problems.push(problem(codes, 'tag-wrong-kind', node.range, message));
    return info;
  }
  if (node.kind === 'seq') {
    if (info.arity && !arityAllows(info.arity, node.items.length)) {
      const count = node.items.length === 1 ? '1 item' : `${node.items.length} items`;
      const message = `${tag} takes ${info.arity.text}, but has ${count}.`;
      problems.push(problem(codes, 'tag-arity', node.range, message));
    }
    if (tag === '!Condition') checkWord(node, 0, conditionModes, 'tag-condition-mode', problems);
    if (tag === '!Enumerate') checkWord(node, 1, enumerateOutputs, 'tag-enumerate-output', problems);
  }
  if ((tag === '!Index' || tag === '!Value') && node.kind === 'scalar') {
    checkDepth(tag, String(node.value ?? '').trim(), node.range, enumerates, problems);
  }
  return info;
}

/** `!Condition` mode and `!Enumerate` output kind: a literal word, matched ignoring case. */
function checkWord(
  node: BSeq,
  index: number,
  words: readonly string[],
  code: 'tag-condition-mode' | 'tag-enumerate-output',
  problems: Problem[],
): void {
  const item = node.items[index];
  if (!item) return;
  const what = code === 'tag-condition-mode' ? `The ${node.tag} mode` : `The ${node.tag} output kind`;
  const allowed = `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
  if (item.kind !== 'scalar' || item.tag !== undefined || typeof item.value !== 'string') {
    const shown = item.kind === 'scalar' && !item.tag ? ` (got ${String(item.value)})` : '';
    const message = `${what} must be written as one of ${allowed}${shown}; it cannot be computed.`;
    problems.push(problem(codes, code, item.range, message));
    return;
  }
  if (words.includes(item.value.toUpperCase())) return;
  const suggestion = closest(item.value, words, 1);
  const advice = suggestion ? ` Did you mean ${suggestion}?` : '';
  const found = problem(codes, code, item.range, `${what} '${item.value}' is not one of ${allowed}.${advice}`);
  problems.push(withSuggestions(found, item.range, [suggestion]));
}

function checkDepth(
  tag: string,
  source: string,
  range: Range,
  enumerates: readonly EnumerateFrame[],
  problems: Problem[],
): void {
  if (!/^\d+$/.test(source)) {
    const message = `${tag} takes a depth: a whole number 0 or more (0 is the innermost !Enumerate), not '${source}'.`;
    problems.push(problem(codes, 'tag-depth-invalid', range, message));
    return;
  }
  const depth = Number(source);
  const available = enumerates.length;
  if (available === 0) {
    problems.push(problem(codes, 'tag-outside-enumerate', range, `${tag} can only be used inside an !Enumerate.`));
    return;
  }
  if (depth >= available) {
    const enclosing =
      available === 1 ? 'there is 1 enclosing !Enumerate' : `there are ${available} enclosing !Enumerate`;
    const message = `${tag} ${depth} is too deep: ${enclosing}, so the depth must be at most ${available - 1}.`;
    problems.push(problem(codes, 'tag-depth-out-of-range', range, message));
    return;
  }
  if (!enumerates[available - 1 - depth]!.inBody) {
    const message =
      `${tag} ${depth} refers to the !Enumerate whose iterable or output kind it is in, which has no ` +
      `current item there. Use a greater depth to reach an outer !Enumerate, or move it into the body.`;
    problems.push(problem(codes, 'tag-depth-not-in-body', range, message));
  }
}
