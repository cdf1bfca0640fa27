import type { BNode } from '../reading/blueprint-node.ts';
import { NO_NODES } from '../reading/node-queries.ts';

// Three checks look at tags only (the tag rules, `!Find` queries, `!KeyOf` references), and an
// entry's tagged nodes are a few of its nodes: one walk per entry, shared, instead of one each.
// Parsed trees never change shape (the parser's cache only moves their ranges), so the list is
// remembered by the node's identity, for as long as the node lives.
const remembered = new WeakMap<BNode, readonly BNode[]>();

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
  const found: BNode[] = [];
  const pending: BNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (skip.has(node)) continue;
    if (node.tag !== undefined) found.push(node);
    if (node.kind === 'seq') for (let i = node.items.length - 1; i >= 0; i--) pending.push(node.items[i]!);
    else if (node.kind === 'map') {
      for (let i = node.entries.length - 1; i >= 0; i--) pending.push(node.entries[i]!.value, node.entries[i]!.key);
    }
  }
  // Kept as long as the entry: a copy of its own length (a pushed-to array keeps room for 17).
  const list = found.slice();
  if (whole) remembered.set(root, list);
  return list;
}
