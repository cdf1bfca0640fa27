import type { Range } from './problem.ts';

/** Fields every node has. `range` covers the node including its tag (not its anchor or comments). */
interface NodeBase {
  range: Range;
  /** Resolved tag name as written, e.g. '!KeyOf'; standard tags appear as 'tag:yaml.org,2002:str'. */
  tag?: string;
  /** Where the tag itself is written, e.g. the `!KeyOf` of `!KeyOf flow`. */
  tagRange?: Range;
  anchor?: string;
}

export type ScalarValue = string | number | boolean | null;

export interface BScalar extends NodeBase {
  kind: 'scalar';
  /** A tagged scalar keeps its source text (as the service sees it), e.g. `!Index 0` -> '0'. */
  value: ScalarValue;
}

export interface BEntry {
  key: BNode;
  value: BNode;
  /** From the start of the key to the end of the value. */
  range: Range;
}

export interface BMap extends NodeBase {
  kind: 'map';
  entries: BEntry[];
  /** Written in flow style: `{ ... }`. */
  flow: boolean;
}

export interface BSeq extends NodeBase {
  kind: 'seq';
  items: BNode[];
  /** Written in flow style: `[ ... ]`. */
  flow: boolean;
}

export interface BAlias extends NodeBase {
  kind: 'alias';
  /** The anchor name it refers to (without `*`). */
  name: string;
}

export type BNode = BScalar | BMap | BSeq | BAlias;
export type BNodeKind = BNode['kind'];
