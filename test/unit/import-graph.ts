import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every relative import of a TypeScript file: static, re-exports, type-only and dynamic ones. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm;

/** The files below `root` (repository-relative paths) and the files each imports. */
export function importGraph(repository: string, roots: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (directory: string) => {
    for (const entry of readdirSync(path.join(repository, directory), { withFileTypes: true })) {
      const file = path.posix.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(file);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const text = readFileSync(path.join(repository, file), 'utf8');
        const targets = [...text.matchAll(IMPORT)].map((match) => path.posix.join(path.posix.dirname(file), match[1]!));
        graph.set(file, [...new Set(targets)]);
      }
    }
  };
  for (const root of roots) walk(root);
  return graph;
}

/** The import circles of `graph`: each strongly connected set of two or more files (or a file importing itself). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative over an explicit stack so a deep chain cannot overflow.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const frames: { node: string; edges: string[]; at: number }[] = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      frames.push({ node, edges: (graph.get(node) ?? []).filter((target) => graph.has(target)), at: 0 });
    };
    enter(start);
    while (frames.length) {
      const frame = frames[frames.length - 1]!;
      if (frame.at < frame.edges.length) {
        const target = frame.edges[frame.at++]!;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const members: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          members.push(member);
        } while (member !== frame.node);
        if (members.length > 1 || graph.get(frame.node)!.includes(frame.node)) circles.push(members.sort());
      }
    }
  }
  return circles;
}
