import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateBlueprint } from '../../bench/blueprint-generator.ts';
import type { Problem } from '../../language-server/src/service/problem.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { readYamlDocument } from '../../language-server/src/service/reading/yaml-document-reader.ts';
import { readYamlFast, Unsupported } from '../../language-server/src/service/reading/yaml-fast-reader.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Parameters<typeof generateBlueprint>[0];

/** JSON with NaN kept apart from null, so that `.nan` is compared too. */
const json = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'number' && Number.isNaN(item) ? 'NaN' : item));

/** A tree and its problems as text; problems by offset (the order of finding them does not matter). */
const canonical = ({ root, problems }: { root: unknown; problems: readonly Problem[] }): string =>
  json({ root, problems: [...problems].sort((a, b) => a.range[0] - b.range[0] || a.message.localeCompare(b.message)) });

/** The fast reader's result, or 'unsupported'. Any other exception fails the test. */
function fast(text: string): string {
  const problems: Problem[] = [];
  try {
    const root = readYamlFast(text, problems);
    return canonical({ root, problems });
  } catch (error) {
    if (error instanceof Unsupported) return 'unsupported';
    throw error;
  }
}

const general = (text: string): string => canonical(readYamlDocument(text));

describe('the fast YAML reader gives the yaml package’s tree', () => {
  const supported: [string, string][] = [
    ['block mapping and sequence', 'version: 1\nentries:\n  - model: a.b\n    id: x\n  - model: c.d\n'],
    ['sequence at the key’s indentation', 'entries:\n- a\n- b\nnext: 1\n'],
    ['nested compact forms', '- - a\n  - b\n- k: v\n  l: w\n'],
    [
      'YAML 1.1 scalars',
      'a: yes\nb: Off\nc: ~\nd: null\ne: -12\nf: 3.50\ng: .inf\nh: -.Inf\ni: .nan\nj: 1e3\nk: 0\nl: text\n',
    ],
    ['quoted scalars and escapes', 'a: "x\\ty \\u00e9 \\"q\\" \\\\"\nb: \'it\'\'s\'\n"c d": \'e\'\n'],
    ['comments everywhere', '# head\na: 1 # one\n# between\nb:   # none\n  - x # item\n\n# tail\n'],
    ['empty values', 'a:\nb:   \nc: !KeyOf\nd: !Env   \n-\n'.replace('\n-\n', '\n')],
    ['empty sequence items', 'list:\n  -\n  - \n  - x\n'],
    [
      'tags on every kind of node',
      'a: !KeyOf x\nb: !Format [a, !Context k]\nc: !Enumerate\n  - !Context list\n  - SEQ\n  - !Value 0\nd: !If\n  k: v\n',
    ],
    [
      'literal block scalars',
      'a: |\n  one\n\n  two\n\n\nb: |-\n  x\n  y\nc: |\n    deep\n  shallow\n'.replace('\n  shallow\n', '\n'),
    ],
    ['folded block scalars', 'a: >\n  one\n  two\n\n  three\nb: >-\n  x\n  y\n'],
    ['block scalar at the end without a line break', 'a: |\n  last'],
    ['block scalar with no content', 'a: |\nb: 1\n'],
    ['multi-line flow collections with trailing commas', 'a: [\n    x,\n    [y, z],\n  ]\nb: {k: v, l: [1, 2],}\n'],
    [
      'a JSON document',
      '{\n  "version": 1,\n  "entries": [\n    {"model": "a.b", "attrs": {"n": null, "t": true, "f": -1.5e3}}\n  ]\n}\n',
    ],
    ['duplicate keys', 'a: 1\nb: 2\na: 3\nm: {x: 1, x: 2}\n'],
    ['keys of other types', '1: one\ntrue: yes\n~: nothing\n'],
    ['URLs and colons inside values', 'url: https://example.com:8443/x?y=1#z\nkey: a:b\n'],
    ['an indented root', '  a: 1\n  b: 2\n'],
    ['only comments', '# nothing here\n\n'],
  ];
  it.each(supported)('%s', (_name, text) => {
    const result = fast(text);
    expect(result).not.toBe('unsupported');
    expect(result).toBe(general(text));
  });

  const unsupported: [string, string][] = [
    ['anchors and aliases', 'a: &x 1\nb: *x\n'],
    ['merge keys', 'a: {k: 1}\nb:\n  <<: {k: 2}\n'],
    ['tabs', 'a:\tb\n'],
    ['CRLF line breaks', 'a: 1\r\nb: 2\r\n'],
    ['documents and directives', '%YAML 1.1\n---\na: 1\n'],
    ['multi-line plain scalars', 'a: one\n  two\n'],
    ['multi-line quoted scalars', 'a: "one\n  two"\n'],
    ['YAML 1.1 number forms', 'a: 0x1F\nb: 1_000\nc: 0755\nd: 1:30\n'],
    ['timestamps', 'a: 2024-01-02\n'],
    ['complex keys', '? a\n: b\n'],
    ['standard tags', 'a: !!str 1\n'],
    ['explicit indentation of block scalars', 'a: |2\n   x\n'],
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
    ['a nested mapping on one line', 'a: b: c\n'],
  ];
  it.each(unsupported)('leaves %s to the yaml package', (_name, text) => {
    expect(fast(text)).toBe('unsupported');
  });

  it('on every corpus file', () => {
    for (const { name, text } of corpus) expect(fast(text), name).toBe(general(text));
  });

  it('on a generated 2,000-entry blueprint', () => {
    const { text } = generateBlueprint(schema, 2000);
    expect(fast(text)).toBe(general(text));
  });

  it('on 3,000 seeded mutations of the corpus, whenever it reads them', () => {
    const random = randomSource(20261122);
    let read = 0;
    for (let run = 0; run < 3000; run++) {
      let text = random.pick(corpus).text;
      for (let edits = 1 + Math.floor(random.next() * 2); edits > 0; edits--) text = mutate(text, random);
      const result = fast(text);
      if (result === 'unsupported') continue;
      read++;
      if (result !== general(text)) expect.fail(`the trees differ (run ${run}):\n${text}`);
    }
    // Most slips keep the text in the fast subset: the comparison covered many of them.
    expect(read).toBeGreaterThan(1500);
  });
});

describe('parseBlueprint: fast reader, per-entry fallback, whole-document fallback', () => {
  it('matches the yaml package on well-formed mutations, and finds an error in the others', () => {
    const random = randomSource(7);
    for (let run = 0; run < 1500; run++) {
      let text = random.pick(corpus).text;
      for (let edits = 1 + Math.floor(random.next() * 2); edits > 0; edits--) text = mutate(text, random);
      const reference = readYamlDocument(text);
      const parsed = parseBlueprint(text);
      const errors = (problems: typeof parsed.problems) => problems.filter((found) => found.severity === 'error');
      if (errors(reference.problems).length === 0) {
        const same = canonical(parsed) === canonical(reference);
        if (!same) expect.fail(`the trees differ (run ${run}):\n${text}`);
      } else if (errors(parsed.problems).length === 0) {
        expect.fail(`the yaml package finds an error that parseBlueprint misses (run ${run}):\n${text}`);
      }
    }
  });

  it('reads an entry outside the fast subset alone, keeping the others', () => {
    const text =
      'version: 1\nentries:\n  - model: a.b\n    id: one\n  - model: a.b\n    attrs: {name: &n x, copy: *n}\n';
    const parsed = parseBlueprint(text);
    expect(canonical(parsed)).toBe(general(text));
  });

  it('reports a syntax error inside one entry at its place in the document', () => {
    const text = 'version: 1\nentries:\n  - model: a.b\n    id: one\n  - model: a.b\n    id: "two\n  - model: a.b\n';
    const { problems } = parseBlueprint(text);
    expect(problems.some((found) => found.code === 'yaml-syntax')).toBe(true);
    for (const found of problems)
      expect(found.range[0]).toBeGreaterThanOrEqual(text.indexOf('  - model: a.b\n    id: "'));
  });
});

describe('parseBlueprint with the previous parse', () => {
  const { text } = generateBlueprint(schema, 300);
  const entryNodes = (root: ReturnType<typeof parseBlueprint>['root']) => {
    const entries = root?.kind === 'map' ? root.entries.find((entry) => entry.key.kind === 'scalar' && entry.key.value === 'entries')?.value : undefined;
    if (entries?.kind === 'seq') return entries.items;
    if (entries?.kind === 'map') return entries.entries.flatMap((group) => (group.value.kind === 'seq' ? group.value.items : []));
    return [];
  }; // prettier-ignore

  it('takes over the entries before and after an edit, moved to their new offsets', () => {
    const first = parseBlueprint(text);
    const before = entryNodes(first.root);
    const line = text.indexOf('\n', Math.floor(text.length / 2));
    const edited = `${text.slice(0, line)} # a comment that moves what follows${text.slice(line)}`;
    const second = parseBlueprint(edited, { previous: first.cache });
    const after = entryNodes(second.root);
    expect(after).toHaveLength(before.length);
    const kept = after.filter((node, i) => node === before[i]).length;
    expect(kept).toBeGreaterThanOrEqual(before.length - 1);
    expect(json(second.root)).toBe(json(parseBlueprint(edited).root));
  });

  it('gives the same result as a fresh parse over a chain of random edits', () => {
    const random = randomSource(99);
    for (const file of corpus) {
      let current = file.text;
      let cache = parseBlueprint(current).cache;
      for (let step = 0; step < 40; step++) {
        current = mutate(current, random);
        const incremental = parseBlueprint(current, { previous: cache });
        cache = incremental.cache;
        const fresh = parseBlueprint(current);
        const same = canonical(incremental) === canonical(fresh);
        if (!same) expect.fail(`${file.name}, step ${step}: the incremental parse differs:\n${current}`);
      }
    }
  });
});
