import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../language-server/src/service/edit-distance.ts';
import { createLineIndex } from '../../language-server/src/service/reading/text-document.ts';

function roundTrip(text: string): void {
  const index = createLineIndex(text);
  for (let offset = 0; offset <= text.length; offset++) {
    const position = index.positionAt(offset);
    const back = index.offsetAt(position);
    // An offset between "\r" and "\n" is not a position of its own: it maps to the line end.
    const expected = text[offset - 1] === '\r' && text[offset] === '\n' ? offset - 1 : offset;
    expect(back, `offset ${offset} -> ${JSON.stringify(position)}`).toBe(expected);
  }
}

describe('createLineIndex', () => {
  it.each([
    ['LF with final newline', 'version: 1\nentries: []\n'],
    ['CRLF with final newline', 'version: 1\r\nentries:\r\n  - a\r\n'],
    ['no final newline', 'version: 1\nentries: []'],
    ['CRLF, no final newline', 'a: 1\r\nb: 2'],
    ['lone CR and blank lines', 'a\r\rb\n\n\nc'],
    ['empty text', ''],
  ])('round-trips every offset: %s', (_name, text) => roundTrip(text));

  it('counts lines and characters from 0 across CRLF', () => {
    const index = createLineIndex('ab\r\ncd\r\n');
    expect(index.lineCount).toBe(3);
    expect(index.positionAt(0)).toEqual({ line: 0, character: 0 });
    expect(index.positionAt(2)).toEqual({ line: 0, character: 2 });
    expect(index.positionAt(3)).toEqual({ line: 0, character: 2 });
    expect(index.positionAt(4)).toEqual({ line: 1, character: 0 });
    expect(index.positionAt(5)).toEqual({ line: 1, character: 1 });
    expect(index.positionAt(8)).toEqual({ line: 2, character: 0 });
  });

  it('clamps positions and offsets outside the text', () => {
    const index = createLineIndex('ab\ncd');
    expect(index.positionAt(-5)).toEqual({ line: 0, character: 0 });
    expect(index.positionAt(99)).toEqual({ line: 1, character: 2 });
    expect(index.offsetAt({ line: 0, character: 99 })).toBe(2);
    expect(index.offsetAt({ line: 7, character: 0 })).toBe(5);
    expect(index.offsetAt({ line: -1, character: 3 })).toBe(0);
  });
});

describe('edit distance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps as one step', () => {
    expect(editDistance('Context', 'Context')).toBe(0);
    expect(editDistance('Contxt', 'Context')).toBe(1);
    expect(editDistance('Contetx', 'Context')).toBe(1);
    expect(editDistance('KeyOf', 'Keyof')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });

  it('finds the closest candidate ignoring case, within the limit', () => {
    const tags = ['!KeyOf', '!Find', '!FindObject', '!Format'];
    expect(closest('!keyof', tags, 2)).toBe('!KeyOf');
    expect(closest('!Fnd', tags, 2)).toBe('!Find');
    expect(closest('!Nothing', tags, 2)).toBeUndefined();
  });
});
