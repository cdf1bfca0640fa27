import { describe, expect, it } from 'vitest';
import { checkTags } from '../../language-server/src/service/checks/tag-check.ts';
import type { BNode } from '../../language-server/src/service/reading/blueprint-node.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { covered } from './helpers.ts';

/** A compact picture of a tree: what each node covers in the text. */
function outline(text: string, node: BNode | undefined): unknown {
  if (!node) return undefined;
  const head = `${node.kind} ${JSON.stringify(text.slice(...node.range))}`;
  if (node.kind === 'map') return [head, node.entries.map((e) => [outline(text, e.key), outline(text, e.value)])];
  if (node.kind === 'seq') return [head, node.items.map((item) => outline(text, item))];
  return head;
}

describe('parseBlueprint: the tree', () => {
  it('keeps kinds, values, tags and ranges (tags included in the range)', () => {
    const text = 'version: 1\nentries:\n  - model: !KeyOf  x # note\n    ok: yes\n    n: ~\n    s: "1"\n';
    const { root, problems } = parseBlueprint(text);
    expect(problems).toEqual([]);
    expect(outline(text, root)).toEqual([
      'map "version: 1\\nentries:\\n  - model: !KeyOf  x # note\\n    ok: yes\\n    n: ~\\n    s: \\"1\\""',
      [
        ['scalar "version"', 'scalar "1"'],
        [
          'scalar "entries"',
          [
            'seq "- model: !KeyOf  x # note\\n    ok: yes\\n    n: ~\\n    s: \\"1\\""',
            [
              [
                'map "model: !KeyOf  x # note\\n    ok: yes\\n    n: ~\\n    s: \\"1\\""',
                [
                  ['scalar "model"', 'scalar "!KeyOf  x"'],
                  ['scalar "ok"', 'scalar "yes"'],
                  ['scalar "n"', 'scalar "~"'],
                  ['scalar "s"', 'scalar "\\"1\\""'],
                ],
              ],
            ],
          ],
        ],
      ],
    ]);
    const entry = root?.kind === 'map' ? root.entries[1]?.value : undefined;
    const item = entry?.kind === 'seq' ? entry.items[0] : undefined;
    const values = item?.kind === 'map' ? item.entries.map((e) => e.value) : [];
    // YAML 1.1 like the service: `yes` is true. A tagged scalar keeps its source text.
    expect(values.map((v) => (v.kind === 'scalar' ? v.value : v.kind))).toEqual(['x', true, null, '1']);
    expect(values[0]?.tag).toBe('!KeyOf');
    expect(text.slice(...values[0]!.tagRange!)).toBe('!KeyOf');
    expect(item?.kind === 'map' && covered(text, item.entries[0]!)).toBe('model: !KeyOf  x');
  });

  it('gives block-style tagged collections a range from the tag to the last item', () => {
    const text = 'a: !Enumerate\n  - [1]\n  - SEQ\n  - !Value 0\n  # trailing comment\nb: 1\n';
    const { root } = parseBlueprint(text);
    const a = root?.kind === 'map' ? root.entries[0]!.value : undefined;
    expect(a && text.slice(...a.range)).toBe('!Enumerate\n  - [1]\n  - SEQ\n  - !Value 0');
  });

  it('parses JSON the same way', () => {
    const text = '{"version": 1, "entries": [{"model": "idp_core.user", "identifiers": {"pk": 5}}]}';
    const { root, problems } = parseBlueprint(text, { format: 'json' });
    expect(problems).toEqual([]);
    expect(
      root?.kind === 'map' && root.flow && root.entries.map((e) => e.key.kind === 'scalar' && e.key.value),
    ).toEqual(['version', 'entries']);
  });

  it('keeps anchors and aliases', () => {
    const { root, problems } = parseBlueprint('a: &x {k: 1}\nb: *x\n');
    expect(problems).toEqual([]);
    const [a, b] = root?.kind === 'map' ? root.entries.map((e) => e.value) : [];
    expect(a?.anchor).toBe('x');
    expect(b).toMatchObject({ kind: 'alias', name: 'x' });
  });
});

describe('parseBlueprint: problems', () => {
  it('turns a syntax error into a problem at its place', () => {
    const text = 'version: 1\nentries: [a, b\n';
    const { problems } = parseBlueprint(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.code === 'yaml-syntax' && p.severity === 'error')).toBe(true);
  });

  it('reports a duplicate key as a warning (the service keeps the last value)', () => {
    const text = 'version: 1\nentries: []\nversion: 2\n';
    const { problems } = parseBlueprint(text);
    expect(problems).toEqual([
      {
        code: 'yaml-duplicate-key',
        severity: 'warning',
        range: [23, 30],
        message: "The key 'version' appears earlier in this mapping; the last value wins.",
      },
    ]);
    expect(covered(text, problems[0]!)).toBe('version');
  });

  it('reports a second document', () => {
    const text = 'version: 1\n---\nversion: 2\n';
    const { problems } = parseBlueprint(text);
    expect(problems.map((p) => [p.code, covered(text, p)])).toEqual([['yaml-syntax', '---\nversion: 2\n']]);
  });

  it('leaves unknown tags to checkTags (no parser warning)', () => {
    const { root, problems } = parseBlueprint('a: !Nope 1\n');
    expect(problems).toEqual([]);
    expect(checkTags(root).map((p) => p.code)).toEqual(['tag-unknown']);
  });
});

describe('parseBlueprint: never throws', () => {
  const nested = '['.repeat(20_000) + ']'.repeat(20_000);
  const binary = Array.from({ length: 5000 }, (_, i) => String.fromCharCode((i * 7919) % 65536)).join('');
  it.each([
    ['empty text', ''],
    ['only a comment', '# nothing\n'],
    ['half a document', 'version: 1\nentries:\n  - model: !Find [idp_flows.flow, [slug'],
    ['binary junk', binary],
    ['NUL bytes and tabs', '\0\0\t:\t-\0[{'],
    ['deep nesting', nested],
    ['a tag alone', '!KeyOf'],
  ])('%s', (_name, text) => {
    const { root, problems } = parseBlueprint(text);
    if (text === nested) expect(problems.length).toBeGreaterThan(0);
    for (const p of [...problems, ...checkTags(root)]) {
      expect(0 <= p.range[0] && p.range[0] <= p.range[1] && p.range[1] <= text.length).toBe(true);
    }
  });

  // Size is a benchmark's business; this only checks that a large file is parsed completely.
  it('handles a 2 MB blueprint', { timeout: 60_000 }, () => {
    const entry = '  - model: idp_core.group\n    identifiers:\n      name: !Format [g-%s, !Context n]\n';
    const count = Math.ceil(2_000_000 / entry.length);
    const { root, problems } = parseBlueprint('version: 1\nentries:\n' + entry.repeat(count));
    expect(problems).toEqual([]);
    expect(checkTags(root)).toEqual([]);
    const entries =
      root?.kind === 'map' ? root.entries.find((e) => e.key.kind === 'scalar' && e.key.value === 'entries') : undefined;
    expect(entries?.value.kind === 'seq' ? entries.value.items.length : 0).toBe(count);
  });
});
