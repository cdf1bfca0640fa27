import { describe, expect, it } from 'vitest';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { documentSymbols, type BlueprintSymbol } from '../../language-server/src/service/symbols/document-symbols.ts';
import { foldingRanges } from '../../language-server/src/service/symbols/folding.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';

const symbolsOf = (text: string) => documentSymbols(parseBlueprint(text).root);

/** A symbol tree as text: what each range and selection covers reads better than offsets. */
function outline(text: string, symbols: readonly BlueprintSymbol[]): unknown[] {
  return symbols.map((symbol) => ({
    name: symbol.name,
    kind: symbol.kind,
    ...(symbol.detail === undefined ? {} : { detail: symbol.detail }),
    selects: text.slice(...symbol.selectionRange),
    ...(symbol.children.length > 0 ? { children: outline(text, symbol.children) } : {}),
  }));
}

const sequenceForm = `version: 1
metadata:
  name: Login
  labels:
    blueprints.idp.example/instantiate: "false"
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: my-flow
    attrs:
      name: Login
  - identifiers:
      order: 10
      target: !KeyOf flow
    model: idp_flows.flowstagebinding
  - model: idp_blueprints.metaapplyblueprint
    attrs:
      identifiers: {name: Other}
  - id: nameless
    state: absent
`;

const groupForm = `entries:
  flows:
    - model: idp_flows.flow
      id: flow
      identifiers: {slug: login}
  bindings:
    - model: idp_flows.flowstagebinding
      identifiers: {target: !KeyOf flow, order: 10}
  later: []
`;

describe('document symbols', () => {
  it('a sequence of entries: sections, then entries named by model, id and identifiers', () => {
    expect(outline(sequenceForm, symbolsOf(sequenceForm))).toEqual([
      { name: 'version', kind: 'section', detail: '1', selects: 'version' },
      {
        name: 'metadata',
        kind: 'section',
        selects: 'metadata',
        children: [
          { name: 'name', kind: 'key', detail: 'Login', selects: 'name' },
          { name: 'labels', kind: 'key', selects: 'labels' },
        ],
      },
      {
        name: 'entries',
        kind: 'section',
        detail: '4 entries',
        selects: 'entries',
        children: [
          { name: 'idp_flows.flow  #flow  slug=my-flow', kind: 'entry', selects: 'idp_flows.flow' },
          {
            name: 'idp_flows.flowstagebinding  order=10, target=!KeyOf flow',
            kind: 'entry',
            selects: 'idp_flows.flowstagebinding',
          },
          {
            name: 'idp_blueprints.metaapplyblueprint  name=Other',
            kind: 'entry',
            selects: 'idp_blueprints.metaapplyblueprint',
          },
          // No model: the first key is what the editor selects.
          { name: '(no model)  #nameless', kind: 'entry', selects: 'id' },
        ],
      },
    ]);
  });

  it('named groups: groups between the section and their entries', () => {
    expect(outline(groupForm, symbolsOf(groupForm))).toEqual([
      {
        name: 'entries',
        kind: 'section',
        detail: '2 entries',
        selects: 'entries',
        children: [
          {
            name: 'flows',
            kind: 'group',
            detail: '1 entry',
            selects: 'flows',
            children: [{ name: 'idp_flows.flow  #flow  slug=login', kind: 'entry', selects: 'idp_flows.flow' }],
          },
          {
            name: 'bindings',
            kind: 'group',
            detail: '1 entry',
            selects: 'bindings',
            children: [
              {
                name: 'idp_flows.flowstagebinding  target=!KeyOf flow, order=10',
                kind: 'entry',
                selects: 'idp_flows.flowstagebinding',
              },
            ],
          },
          { name: 'later', kind: 'group', detail: '0 entries', selects: 'later' },
        ],
      },
    ]);
  });

  it('ranges: a section from its key to its last value, an entry from its first key to its last value', () => {
    const [, , entries] = symbolsOf(sequenceForm);
    expect(sequenceForm.slice(...entries!.range)).toBe(sequenceForm.slice(sequenceForm.indexOf('entries:')).trimEnd());
    const first = entries!.children[0]!;
    expect(sequenceForm.slice(...first.range)).toBe(
      'model: idp_flows.flow\n    id: flow\n    identifiers:\n      slug: my-flow\n    attrs:\n      name: Login',
    );
  });

  it('an entry whose first key is tagged covers the tag, so its selection stays inside it', () => {
    // The yaml package starts such a mapping after the key's tag (at `[`).
    const text = 'version: 1\nentries:\n  - !If [a, b] state: absent\n';
    const entry = symbolsOf(text)[1]!.children[0]!;
    expect(text.slice(...entry.selectionRange)).toBe('!If [a, b]');
    expect(text.slice(...entry.range)).toBe('!If [a, b] state: absent');
  });

  it('names are never blank, and long values are cut', () => {
    const text = `"": x\nentries:\n  - model: idp_core.group\n    identifiers: {name: ${'a'.repeat(60)}}\n`;
    const [blank, entries] = symbolsOf(text);
    expect(blank!.name).toBe('""');
    expect(entries!.children[0]!.name).toBe(`idp_core.group  name=${'a'.repeat(39)}…`);
  });

  it('none for a text whose root is not a mapping', () => {
    expect(symbolsOf('- a\n- b\n')).toEqual([]);
    expect(symbolsOf('')).toEqual([]);
  });
});

describe('folding ranges', () => {
  it('sections, groups, entries and nested blocks, one per start line, ending on their last line', () => {
    const text = `version: 1
entries:
  flows:
    - model: idp_flows.flow
      identifiers:
        slug: login
      attrs:
        title: |
          Welcome
          back
        layout: stacked
  other:
    - model: idp_core.group
      identifiers: {name: admins}
`;
    expect(foldingRanges(parseBlueprint(text).root, text)).toEqual([
      { startLine: 1, endLine: 13 }, // entries
      { startLine: 2, endLine: 10 }, // group flows
      { startLine: 3, endLine: 10 }, // the entry
      { startLine: 4, endLine: 5 }, // identifiers
      { startLine: 6, endLine: 10 }, // attrs
      { startLine: 7, endLine: 9 }, // the block scalar, without the line after it
      { startLine: 11, endLine: 13 }, // group other
      { startLine: 12, endLine: 13 }, // its entry
    ]);
  });

  it('the same lines with CRLF line ends, and none for a one-line document', () => {
    const text = 'metadata:\r\n  name: x\r\n  labels: {a: "b"}\r\n';
    expect(foldingRanges(parseBlueprint(text).root, text)).toEqual([{ startLine: 0, endLine: 2 }]);
    expect(foldingRanges(parseBlueprint('entries: []').root, 'entries: []')).toEqual([]);
  });
});

/** Every symbol of a tree: names not blank, selection inside range, ranges inside the text. */
function checkSymbols(text: string, symbols: readonly BlueprintSymbol[], label: string): void {
  for (const symbol of symbols) {
    const [start, end] = symbol.range;
    const [selectionStart, selectionEnd] = symbol.selectionRange;
    const fits = 0 <= start && start <= selectionStart && selectionStart <= selectionEnd && selectionEnd <= end;
    if (!fits || end > text.length || symbol.name.trim() === '') {
      expect.fail(
        `${label}: symbol ${JSON.stringify(symbol.name)} ${start}-${end} / ${selectionStart}-${selectionEnd}`,
      );
    }
    checkSymbols(text, symbol.children, label);
  }
}

function checkFolds(text: string, label: string): void {
  const lineCount = text.split(/\r\n|\r|\n/).length;
  let previous = -1;
  for (const { startLine, endLine } of foldingRanges(parseBlueprint(text).root, text)) {
    if (!(previous < startLine && startLine < endLine && endLine < lineCount)) {
      expect.fail(`${label}: fold ${startLine}-${endLine} after ${previous} in ${lineCount} lines`);
    }
    previous = startLine;
  }
}

describe('symbols and folds of any text', () => {
  it.each(corpus.map((file) => [file.name, file.text]))('%s', (name, text) => {
    const symbols = symbolsOf(text);
    checkSymbols(text, symbols, name);
    checkFolds(text, name);
    expect(symbols.map((symbol) => symbol.name)).toContain('version');
  });

  it('500 seeded mutations of the corpus never throw and stay inside the text', () => {
    const random = randomSource(9001);
    for (let run = 0; run < 500; run++) {
      let text = random.pick(corpus).text;
      for (let edits = 1 + Math.floor(random.next() * 3); edits > 0; edits--) text = mutate(text, random);
      checkSymbols(text, symbolsOf(text), `mutation ${run}`);
      checkFolds(text, `mutation ${run}`);
    }
  });
});
