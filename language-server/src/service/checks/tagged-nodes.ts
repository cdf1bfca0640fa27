import type { BNode } from '../reading/blueprint-node.ts';
import { NO_NODES } from '../reading/node-queries.ts';

// Three checks look at tags only (the tag rules, `!Find` queries, `!KeyOf` references), and an
// entry's tagged nodes are a few of its nodes: one walk per entry, shared, instead of one each.
// Parsed trees never change shape (the parser's cache only moves their ranges), so the list is
// remembered by the node's identity, for as long as the node lives.
const remembered = new WeakMap<BNode, readonly BNode[]>();

// The walk's stack and what it finds, shared by all walks (a walk calls out to nothing, so none
// runs inside another): two arrays per walk, each with room for 17 after its first push, were
// ~3 MB of garbage over 10,000 entries.
const pending: (BNode | undefined)[] = [];
const found: (BNode | undefined)[] = [];
/** The list of most entries: no node of theirs is tagged. */
const NO_TAGGED: readonly BNode[] = [];

/**
 * Every node inside `root` (itself included) that carries a tag, in document order (a key
 * before its value). `skip` leaves out subtrees checked elsewhere; only a walk without it is remembered.
 */
export function taggedNodes(root: BNode, skip: ReadonlySet<BNode> = NO_NODES): readonly BNode[] {
  const whole = skip.size === 0;
  if (whole) {
    const known = remembered.get(root);
    if (known) return known;
  }
  let top = 0;
  let count = 0;
  let deepest = 1;
  pending[top++] = root;
  while (top > 0) {
    const node = pending[--top]!;
    if (skip.has(node)) continue;
    if (node.tag !== undefined) found[count++] = node;
    // Untagged scalars (every key, most values) can hold no tagged node: they are passed over
    // instead of pushed and popped, and the order stays. Tested inline: a call per node costs more.
    if (node.kind === 'seq') {
      const items = node.items;
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i]!;
        if (item.tag !== undefined || item.kind === 'seq' || item.kind === 'map') pending[top++] = item;
      }
    } else if (node.kind === 'map') {
      const entries = node.entries;
      for (let i = entries.length - 1; i >= 0; i--) {
        const { key, value } = entries[i]!;
        if (value.tag !== undefined || value.kind === 'seq' || value.kind === 'map') pending[top++] = value;
        if (key.tag !== undefined || key.kind === 'seq' || key.kind === 'map') pending[top++] = key;
      }
    }
    if (top > deepest) deepest = top;
  }
  // Kept as long as the entry: a copy of its own length, or the shared empty list.
  const list = count === 0 ? NO_TAGGED : (found.slice(0, count) as BNode[]); // the first `count` are nodes
  // The scratch arrays let go of the nodes: they would keep a document's tree alive after its walk.
  pending.fill(undefined, 0, deepest);
  found.fill(undefined, 0, count);
  if (whole) remembered.set(root, list);
  return list;
}
