import type { Range } from '../problem.ts';

/** Fields every node has. `start`/`end` cover the node including its tag (not its anchor or comments). */
interface NodeBase {
  start: number;
  end: number;
  /** `[start, end]`, a new array on each read. */
  readonly range: Range;
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
  readonly range: Range;
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

// A 10,000-entry blueprint is ~200,000 nodes, all alive until its checks end. Offsets are kept as
// two numbers and ranges made on demand: a [start, end] array per node and per mapping entry was
// most of the tree's objects, and of the young-generation collections while it is read.

// Class fields (not assignments in the constructors): each field exists, as undefined, before its
// first value, so V8 keeps one shape per kind whatever the values are (a scalar's value is a
// number in one node and a string in the next; assigning them in the constructors made the cold validation ~30% slower).
// The tag fields too: added to the few tagged nodes only, they gave each kind a second shape, and
// code reading any node saw more shapes than its inline caches keep (and every node had room
// for them anyway: V8 sizes the objects of a class for the most properties any of them gets).
// No base class: a derived constructor calls its base and runs two field initialisers, and a cold
// read of 200,000 nodes runs them unoptimised. `kind` is the prototype's: one field less per node.
// Scalars are the exception to the tag fields: four nodes in five are scalars, and nearly all of
// them untagged (every key). An untagged scalar is a class with no room for the tag fields (its
// prototype answers undefined for them): 48 bytes instead of 72, a seventh less of the tree that
// the young-generation collections copy while it is read. Code reading nodes sees four shapes
// (scalar, tagged scalar, mapping, sequence), as many as V8's inline caches keep.

/** `range` of every kind: the offsets as a new array. */
function rangeOf(this: { start: number; end: number }): Range {
  return [this.start, this.end];
}

class Scalar implements BScalar {
  start: number;
  end: number;
  value: ScalarValue;
  declare readonly tag?: string;
  declare readonly tagRange?: Range;
  declare readonly anchor?: string;
  declare readonly kind: 'scalar';
  declare readonly range: Range;
  constructor(value: ScalarValue, start: number, end: number) {
    this.start = start;
    this.end = end;
    this.value = value;
  }
}

/** A scalar with a tag or an anchor. */
class TaggedScalar implements BScalar {
  start: number;
  end: number;
  tag?: string = undefined;
  tagRange?: Range = undefined;
  anchor?: string = undefined;
  value: ScalarValue;
  declare readonly kind: 'scalar';
  declare readonly range: Range;
  constructor(value: ScalarValue, start: number, end: number) {
    this.start = start;
    this.end = end;
    this.value = value;
  }
}

class Mapping implements BMap {
  start: number;
  end: number;
  tag?: string = undefined;
  tagRange?: Range = undefined;
  anchor?: string = undefined;
  entries: BEntry[];
  flow: boolean;
  declare readonly kind: 'map';
  declare readonly range: Range;
  constructor(entries: BEntry[], flow: boolean, start: number, end: number) {
    this.start = start;
    this.end = end;
    this.entries = entries;
    this.flow = flow;
  }
}

class Sequence implements BSeq {
  start: number;
  end: number;
  tag?: string = undefined;
  tagRange?: Range = undefined;
  anchor?: string = undefined;
  items: BNode[];
  flow: boolean;
  declare readonly kind: 'seq';
  declare readonly range: Range;
  constructor(items: BNode[], flow: boolean, start: number, end: number) {
    this.start = start;
    this.end = end;
    this.items = items;
    this.flow = flow;
  }
}

class Alias implements BAlias {
  start: number;
  end: number;
  tag?: string = undefined;
  tagRange?: Range = undefined;
  anchor?: string = undefined;
  name: string;
  declare readonly kind: 'alias';
  declare readonly range: Range;
  constructor(name: string, start: number, end: number) {
    this.start = start;
    this.end = end;
    this.name = name;
  }
}

/** What every node of a kind shares, on its prototype. */
const shared = (kind: BNodeKind): PropertyDescriptorMap => ({ kind: { value: kind }, range: { get: rangeOf } });
Object.defineProperties(Scalar.prototype, {
  ...shared('scalar'),
  tag: { value: undefined },
  tagRange: { value: undefined },
  anchor: { value: undefined },
});
Object.defineProperties(TaggedScalar.prototype, shared('scalar'));
Object.defineProperties(Mapping.prototype, shared('map'));
Object.defineProperties(Sequence.prototype, shared('seq'));
Object.defineProperties(Alias.prototype, shared('alias'));

/** A key and its value; its range is theirs, so that moving the nodes moves it. */
class MapEntry implements BEntry {
  constructor(
    public key: BNode,
    public value: BNode,
  ) {}

  get range(): Range {
    return [this.key.start, Math.max(this.key.end, this.value.end)];
  }
}

/** What both readers may add to a node: a tag (and where it is written) and an anchor. */
export interface NodeExtras {
  tag?: string | undefined;
  tagRange?: Range | undefined;
  anchor?: string | undefined;
}

function withExtras<T extends NodeBase>(node: T, extras: NodeExtras | undefined): T {
  if (extras?.tag !== undefined) node.tag = extras.tag;
  if (extras?.tagRange !== undefined) node.tagRange = extras.tagRange;
  if (extras?.anchor !== undefined) node.anchor = extras.anchor;
  return node;
}

export const scalarNode = (value: ScalarValue, start: number, end: number, extras?: NodeExtras): BScalar =>
  extras?.tag === undefined && extras?.tagRange === undefined && extras?.anchor === undefined
    ? new Scalar(value, start, end)
    : withExtras(new TaggedScalar(value, start, end), extras);

export const mapNode = (entries: BEntry[], flow: boolean, start: number, end: number, extras?: NodeExtras): BMap =>
  withExtras(new Mapping(entries, flow, start, end), extras);

export const seqNode = (items: BNode[], flow: boolean, start: number, end: number, extras?: NodeExtras): BSeq =>
  withExtras(new Sequence(items, flow, start, end), extras);

export const aliasNode = (name: string, start: number, end: number, extras?: NodeExtras): BAlias =>
  withExtras(new Alias(name, start, end), extras);

export const mapEntry = (key: BNode, value: BNode): BEntry => new MapEntry(key, value);
