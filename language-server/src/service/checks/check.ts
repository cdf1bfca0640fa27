import type { Problem } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import type { SchemaIndex } from '../schema/schema-index.ts';

/** What a check reads besides the tree. One shape for both passes, so the checks' calls stay monomorphic. */
export interface CheckContext {
  readonly index: SchemaIndex;
  /** The text the tree was read from: values as written, line numbers in messages. */
  readonly text: string;
  /**
   * Subtrees the whole-blueprint pass leaves out: the entries, checked one by one before it.
   * Empty in the pass over one entry.
   */
  readonly checked: ReadonlySet<BNode>;
}

/**
 * One family of blueprint rules, listed in `registry.ts` and run by `runChecks`. A check pushes
 * its findings onto `problems` (no array of its own per entry) and never reads another's. The
 * three hooks run in this order; findings that start at the same offset keep it.
 */
export interface Check {
  /** Names the check in the registry; the problem codes name its findings. */
  readonly id: string;
  /** The root's own keys and values (version, metadata, the shape of `entries`), before any entry. */
  checkTopLevel?(root: BNode | undefined, context: CheckContext, problems: Problem[]): void;
  /**
   * The findings inside one entry, judged alone. They are kept with the entry's parse, so an
   * entry whose text did not change is not checked again.
   */
  checkEntry?(entry: BNode, context: CheckContext, problems: Problem[]): void;
  /** After the entries: what lies outside them (`context.checked` holds them), or across them. */
  checkBlueprint?(root: BNode | undefined, context: CheckContext, problems: Problem[]): void;
}
