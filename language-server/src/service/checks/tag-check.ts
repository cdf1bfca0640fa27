import { closest } from '../../../../common/spelling.ts';
import { problem, syntaxAndTagCodes, withSuggestions, type Problem, type Range } from '../problem.ts';
import type { BNode, BSeq } from '../reading/blueprint-node.ts';
import { isDeferred, NO_NODES } from '../reading/node-queries.ts';
import {
  arityAllows,
  blueprintTags,
  conditionModes,
  enumerateOutputs,
  tagsByName,
  type TagInfo,
} from '../tag-table.ts';
import type { Check } from './check.ts';
import { readFormat, type FormatReading } from './format-string.ts';
import { taggedNodes } from './tagged-nodes.ts';

const codes = syntaxAndTagCodes;
const tagNames = blueprintTags.map((tag) => tag.name);

/** One enclosing `!Enumerate`: whether the node being checked is inside its body (third item). */
interface EnumerateFrame {
  inBody: boolean;
}

const NO_FRAMES: readonly EnumerateFrame[] = [];

const kindWords = { scalar: 'a scalar', seq: 'a sequence', map: 'a mapping', alias: 'an alias' } as const;

/**
 * Checks every custom tag in the tree: known name, node kind, item count, `!Condition` mode,
 * `!Enumerate` output kind and `!Index`/`!Value` depth. Never throws.
 *
 * Depth follows the service: an `!Enumerate` is the innermost context for ALL its items, so
 * `!Value 1` in the iterable of an inner `!Enumerate` reaches the outer one; but a depth that
 * lands on an `!Enumerate` from its iterable (or output kind) finds no current item: an error.
 */
export function checkTags(root: BNode | undefined): Problem[] {
  const problems: Problem[] = [];
  if (root) collectTagProblems(root, NO_NODES, problems);
  return problems;
}

/** The tag rules, on each entry and then around the entries. */
export const tagCheck: Check = {
  id: 'tags',
  checkEntry: (entry, context, problems) => collectTagProblems(entry, context.checked, problems),
  checkBlueprint: (root, context, problems) => {
    if (root) collectTagProblems(root, context.checked, problems);
  },
};

function collectTagProblems(root: BNode, skip: ReadonlySet<BNode>, problems: Problem[]): void {
  const tagged = taggedNodes(root, skip);
  // Outside any !Enumerate every node has the same (empty) context: the tagged nodes are enough.
  if (!hasEnumerate(tagged)) {
    for (let i = 0; i < tagged.length; i++) checkOneTag(tagged[i]!, NO_FRAMES, problems);
    return;
  }
  // Two parallel stacks: no pair is allocated per node.
  const nodes: BNode[] = [root];
  const frames: (readonly EnumerateFrame[])[] = [NO_FRAMES];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const enumerates = frames.pop()!;
    if (skip.has(node)) continue;
    const info = node.tag ? checkOneTag(node, enumerates, problems) : undefined;
    if (node.kind === 'seq') {
      const enumerate = info?.name === '!Enumerate';
      // With the wrong number of items the body is not known: no item is judged as outside it.
      const shaped = enumerate && node.items.length === 3;
      for (let i = node.items.length - 1; i >= 0; i--) {
        nodes.push(node.items[i]!);
        frames.push(enumerate ? [...enumerates, { inBody: !shaped || i >= 2 }] : enumerates);
      }
    } else if (node.kind === 'map') {
      for (let i = node.entries.length - 1; i >= 0; i--) {
        nodes.push(node.entries[i]!.value, node.entries[i]!.key);
        frames.push(enumerates, enumerates);
      }
    }
  }
}

/** Written out: `some` with an arrow made a closure and a call per node, for every entry. */
function hasEnumerate(tagged: readonly BNode[]): boolean {
  for (let i = 0; i < tagged.length; i++) if (tagged[i]!.tag === '!Enumerate') return true;
  return false;
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
    const arityWrong = info.arity !== undefined && !arityAllows(info.arity, node.items.length);
    if (arityWrong) {
      const message = `${tag} takes ${info.arity!.text}, but has ${itemCount(node.items.length)}.${missingPart(node)}`;
      problems.push(problem(codes, 'tag-arity', node.range, message));
    }
    if (tag === '!Condition') checkWord(node, 0, conditionModes, 'tag-condition-mode', problems);
    // A wrong count is the one mistake: which item was left out is a guess, so the others are not judged.
    if (tag === '!Enumerate' && !arityWrong && checkWord(node, 1, enumerateOutputs, 'tag-enumerate-output', problems)) {
      checkEnumerateBody(node, problems);
    }
    if (tag === '!Format') checkFormat(node, problems);
  }
  if ((tag === '!Index' || tag === '!Value') && node.kind === 'scalar') {
    checkDepth(tag, String(node.value ?? '').trim(), node.range, enumerates, problems);
  }
  return info;
}

/** `!Condition` mode and `!Enumerate` output kind: a literal word, matched ignoring case. True when it is one. */
function checkWord(
  node: BSeq,
  index: number,
  words: readonly string[],
  code: 'tag-condition-mode' | 'tag-enumerate-output',
  problems: Problem[],
): boolean {
  const item = node.items[index];
  if (!item) return false;
  const what = code === 'tag-condition-mode' ? `The ${node.tag} mode` : `The ${node.tag} output kind`;
  const allowed = `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
  if (item.kind !== 'scalar' || item.tag !== undefined || typeof item.value !== 'string') {
    const shown = item.kind === 'scalar' && !item.tag ? ` (got ${String(item.value)})` : '';
    const message = `${what} must be written as one of ${allowed}${shown}; it cannot be computed.`;
    problems.push(problem(codes, code, item.range, message));
    return false;
  }
  if (words.includes(item.value.toUpperCase())) return true;
  const suggestion = closest(item.value, words, 1);
  const advice = suggestion ? ` Did you mean ${suggestion}?` : '';
  const found = problem(codes, code, item.range, `${what} '${item.value}' is not one of ${allowed}.${advice}`);
  problems.push(withSuggestions(found, item.range, [suggestion]));
  return false;
}

/**
 * With MAP the service merges each result of the body into a mapping: a `[key, value]` sequence
 * becomes `{key: value}`, a mapping is merged as it is, anything else fails. With SEQ each result
 * is appended whatever it is, so a SEQ body needs no check. Only a literal body can be judged.
 */
function checkEnumerateBody(node: BSeq, problems: Problem[]): void {
  const [, output, body] = node.items;
  if (node.items.length !== 3 || !body || isDeferred(body) || body.kind === 'map') return;
  if (output?.kind !== 'scalar' || String(output.value).toUpperCase() !== 'MAP') return;
  if (body.kind === 'seq' && body.items.length === 2) return;
  const what = body.kind === 'seq' ? `, but this sequence has ${itemCount(body.items.length)}` : ', not a scalar';
  const message = `With MAP, the !Enumerate body must be a mapping or a [key, value] pair${what}.`;
  problems.push(problem(codes, 'tag-enumerate-body', body.range, message));
}

/**
 * The service builds `!Format` as `format % tuple(args)` (Python): the placeholders must take
 * exactly the arguments given. A format string computed by a tag is left alone.
 */
function checkFormat(node: BSeq, problems: Problem[]): void {
  const [format, ...args] = node.items;
  if (!format || isDeferred(format)) return;
  if (format.kind !== 'scalar' || typeof format.value !== 'string') {
    const shown = format.kind === 'scalar' ? String(format.value) : kindWords[format.kind];
    const message = `The first item of !Format is the format string: it must be a string, not ${shown}.`;
    problems.push(problem(codes, 'tag-format-invalid', format.range, message));
    return;
  }
  const reading = readFormat(format.value);
  if (!reading.ok) {
    problems.push(problem(codes, 'tag-format-invalid', format.range, formatInvalidMessage(reading)));
    return;
  }
  const { placeholders, argumentCount } = reading;
  if (argumentCount === args.length) return;
  const shown = placeholders.slice(0, 6).map((p) => p.text);
  if (placeholders.length > 6) shown.push('...');
  const listed = shown.length === 0 ? '' : ` (${shown.join(', ')})`;
  const placeholderCount =
    argumentCount === 1 ? '1 placeholder' : `${argumentCount === 0 ? 'no' : argumentCount} placeholders`;
  const follow =
    args.length === 1 ? '1 argument follows it' : `${args.length === 0 ? 'no' : args.length} arguments follow it`;
  // `100% sure` reads as the conversion `% s` (space flag, type s): the usual surprise.
  const literal = placeholders.some((p) => p.text.includes(' ')) ? ' Write %% for a literal percent sign.' : '';
  const message = `The !Format string has ${placeholderCount}${listed}, but ${follow}.${literal}`;
  problems.push(problem(codes, 'tag-format-arguments', format.range, message));
}

function formatInvalidMessage(reading: Extract<FormatReading, { ok: false }>): string {
  if (reading.reason === 'mapping-key') {
    return `The !Format string uses ${reading.text}, a named placeholder; !Format passes its arguments by position: use %s.`;
  }
  if (reading.reason === 'incomplete') {
    return `The !Format string ends in '${reading.text}', an unfinished placeholder. Write %% for a literal percent sign.`;
  }
  return `The !Format string has '${reading.text}', which is not a placeholder Python's % accepts (such as %s or %d). Write %% for a literal percent sign.`;
}

/** For an `!Enumerate` of two items, which part seems left out. */
function missingPart(node: BSeq): string {
  if (node.tag !== '!Enumerate' || node.items.length !== 2) return '';
  const second = node.items[1]!;
  const isOutput =
    second.kind === 'scalar' &&
    !second.tag &&
    (enumerateOutputs as readonly string[]).includes(String(second.value).toUpperCase());
  return isOutput
    ? ' The body is missing: write !Enumerate [<iterable>, SEQ or MAP, <body>].'
    : ' The output kind seems missing: write !Enumerate [<iterable>, SEQ or MAP, <body>].';
}

function itemCount(count: number): string {
  return count === 1 ? '1 item' : `${count} items`;
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
