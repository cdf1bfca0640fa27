import type { BEntry, BNode } from './blueprint-node.ts';

/** One step from the root down to the node at an offset. */
export interface PathStep {
  node: BNode;
  /** When the node is the key or the value of a mapping entry: that entry. */
  pair?: BEntry;
  /** Whether the node is the key of `pair`. */
  isKey?: boolean;
  /** When the node is an item of a sequence: its index. */
  index?: number;
}

/**
 * The nodes containing `offset`, from the root to the innermost (a node contains the offsets from
 * its start to its end, both included, so the end of a word still counts as in it).
 */
export function pathAt(root: BNode | undefined, offset: number): PathStep[] {
  const path: PathStep[] = [];
  if (!root || offset < root.range[0] || offset > root.range[1]) return path;
  let current: PathStep | undefined = { node: root };
  while (current) {
    path.push(current);
    const node: BNode = current.node;
    let next: PathStep | undefined;
    if (node.kind === 'map') {
      for (const pair of node.entries) {
        if (contains(pair.key, offset)) next = { node: pair.key, pair, isKey: true };
        else if (contains(pair.value, offset)) next = { node: pair.value, pair, isKey: false };
        if (next) break;
      }
    } else if (node.kind === 'seq') {
      const index = node.items.findIndex((item) => contains(item, offset));
      if (index >= 0) next = { node: node.items[index]!, index };
    }
    current = next;
  }
  return path;
}

function contains(node: BNode, offset: number): boolean {
  return node.range[0] <= offset && offset <= node.range[1];
}
