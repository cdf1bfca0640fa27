import fc from 'fast-check';

/**
 * Values that break some rule of almost any field: wrong types, bounds, formats, lengths, the
 * strings and numbers that crash careless parsers. Whether a mutated request is really invalid is
 * decided afterwards by the contract's own validator, never assumed.
 */
const BREAKERS: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e-9,
  12.34567,
  1e13,
  -1e13,
  1e300,
  '',
  ' ',
  '1',
  '1e21',
  'NaN',
  '-5',
  '0.000000001',
  '2024-02-30',
  '0000-01-01',
  '2024-13-01',
  'not-a-uuid',
  '00000000-0000-0000-0000-00000000000g',
  '#12345',
  'XXX',
  'x'.repeat(256),
  'x'.repeat(10_001),
  'nul\u0000inside',
  [],
  [null],
  {},
  { nested: { deeper: [1, 2, 3] } },
];

type Path = (string | number)[];

function paths(value: unknown, at: Path = [], found: Path[] = []): Path[] {
  found.push(at);
  if (Array.isArray(value)) value.forEach((item, index) => paths(item, [...at, index], found));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) paths(item, [...at, key], found);
  return found;
}

function update(value: unknown, path: Path, change: (node: unknown) => unknown): unknown {
  if (path.length === 0) return change(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? update(item, rest, change) : item));
  const object = value as Record<string, unknown>;
  return { ...object, [head!]: update(object[head!], rest, change) };
}

/** Removes the member at `path` (or the array item); the root itself cannot be removed. */
function remove(value: unknown, path: Path): unknown {
  if (path.length === 0) return value;
  const parent = path.slice(0, -1);
  const last = path.at(-1)!;
  return update(value, parent, (node) =>
    Array.isArray(node)
      ? node.filter((_, index) => index !== last)
      : Object.fromEntries(Object.entries(node as object).filter(([key]) => key !== last)),
  );
}

export interface Mutation {
  /** Which node (an index into the value's nodes, taken modulo their count). */
  at: number;
  kind: 'replace' | 'remove' | 'add';
  breaker: unknown;
}

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'remove', 'add'),
  breaker: fc.constantFrom(...BREAKERS),
});

/** `value` with one node replaced by a breaker, removed, or given an extra member. */
export function mutate(value: unknown, mutation: Mutation): unknown {
  const all = paths(value);
  const path = all[mutation.at % all.length]!;
  if (mutation.kind === 'remove') return remove(value, path);
  if (mutation.kind === 'add') {
    return update(value, path, (node) =>
      node && typeof node === 'object' && !Array.isArray(node)
        ? { ...node, unexpected_field: mutation.breaker }
        : mutation.breaker,
    );
  }
  return update(value, path, () => mutation.breaker);
}

/** Names no schema of the contract defines, some a slip away from one that it does. */
export const UNKNOWN_NAMES = ['unexpected_field', 'colour', 'amout', 'nmae', 'acount_id'] as const;

/**
 * `value` with a member no schema defines added to one of its objects (chosen by `at`, modulo
 * their count), and the JSON pointer of that member; undefined when the value holds no object.
 */
export function addUnknownMember(
  value: unknown,
  at: number,
  name: string,
): { value: unknown; pointer: string } | undefined {
  const objects = paths(value).filter((path) => {
    const node = path.reduce<unknown>((parent, key) => (parent as Record<string, unknown>)[key], value);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
  if (objects.length === 0) return undefined;
  const path = objects[at % objects.length]!;
  return {
    value: update(value, path, (node) => ({ ...(node as object), [name]: 1 })),
    pointer: [...path, name].map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''),
  };
}
