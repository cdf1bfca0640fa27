import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../common/spelling.ts';
import { createLineIndex } from '../../language-server/src/service/reading/text-document.ts';
import { nearest } from '../../language-server/src/service/schema/schema-index.ts';
import { randomSource } from '../../server/demo/random-source.ts';

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

  // Limits and suggestions measure each candidate only as far as it matters: their answers must be
  // those of the whole table, measured for every candidate.
  const random = randomSource(20261127);
  const word = () =>
    Array.from({ length: Math.floor(random.next() * 10) }, () => random.pick(['a', 'b', 'B', 'c'])).join('');
  const words = Array.from({ length: 400 }, word);
  const distances = (from: string, to: readonly string[]) => to.map((other) => editDistance(from.toLowerCase(), other.toLowerCase())); // prettier-ignore

  it('gives the whole distance within the limit and limit + 1 past it', () => {
    for (let i = 0; i < 4000; i++) {
      const [a, b, limit] = [word(), word(), Math.floor(random.next() * 6)];
      expect(editDistance(a, b, limit), `${a} ${b} ${limit}`).toBe(Math.min(editDistance(a, b), limit + 1));
    }
  });

  it('suggests the first of the nearest candidates, as if all were measured in full', () => {
    for (let i = 0; i < 200; i++) {
      const [target, limit, count] = [word(), Math.floor(random.next() * 4), Math.floor(random.next() * 400)];
      const measured = distances(target, words.slice(0, count));
      const best = Math.min(...measured);
      const expected = best <= limit ? words[measured.indexOf(best)] : undefined;
      expect(closest(target, words, limit, count), `${target} ${limit} ${count}`).toBe(expected);
    }
  });

  it('lists the nearest names as if all were measured in full', () => {
    const names = words.slice(0, 60);
    for (let i = 0; i < 200; i++) {
      const target = word();
      const limit = Math.max(2, Math.floor(target.length / 4));
      const measured = distances(target, names).map((distance, at) => ({ name: names[at]!, distance }));
      const best = Math.min(...measured.map(({ distance }) => distance));
      const expected = measured
        .filter(({ distance }) => distance <= Math.min(limit, best + 1))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3)
        .map(({ name }) => name);
      expect(nearest(target, names), target).toEqual(expected);
    }
  });
});
