import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, csvRecords, splitTags, type CsvRecord } from '../../../server/imports/parsing/csv-rows.ts';

async function records(text: string, delimiter: ',' | ';' = ','): Promise<CsvRecord[]> {
  const found: CsvRecord[] = [];
  for await (const record of csvRecords(text, { delimiter })) found.push(record);
  return found;
}

/** `[line, ...cells]` per record: compact to compare in tables. */
async function rows(text: string, delimiter: ',' | ';' = ','): Promise<(number | string)[][]> {
  return (await records(text, delimiter)).map(({ line, cells }) => [line, ...cells]);
}

describe('csvRecords', () => {
  it.each([
    [
      'LF',
      'Date,Amount\n2024-01-01,12.50\n2024-01-02,-3\n',
      [
        [1, 'Date', 'Amount'],
        [2, '2024-01-01', '12.50'],
        [3, '2024-01-02', '-3'],
      ],
    ],
    [
      'CRLF',
      'Date,Amount\r\n2024-01-01,12.50\r\n',
      [
        [1, 'Date', 'Amount'],
        [2, '2024-01-01', '12.50'],
      ],
    ],
    [
      'CR',
      'Date,Amount\r2024-01-01,12.50',
      [
        [1, 'Date', 'Amount'],
        [2, '2024-01-01', '12.50'],
      ],
    ],
    [
      'mixed line ends',
      'a\r\nb\nc\rd',
      [
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
        [4, 'd'],
      ],
    ],
    [
      'BOM',
      '\uFEFFDate,Amount\n1,2',
      [
        [1, 'Date', 'Amount'],
        [2, '1', '2'],
      ],
    ],
    [
      'no trailing line end',
      'a,b\n1,2',
      [
        [1, 'a', 'b'],
        [2, '1', '2'],
      ],
    ],
    [
      'cells trimmed',
      ' a , b \n\t1\t,  2  ',
      [
        [1, 'a', 'b'],
        [2, '1', '2'],
      ],
    ],
    ['quoted cells trimmed too', '"  a  ", " b "', [[1, 'a', '" b "']]],
    ['quoted delimiter', '"Coffee, large",3', [[1, 'Coffee, large', '3']]],
    ['doubled quotes', '"He said ""hi""",1', [[1, 'He said "hi"', '1']]],
    ['empty quoted cell', '"",x', [[1, '', 'x']]],
    [
      'quoted LF',
      'a,b\n"line 1\nline 2",x\ny,z',
      [
        [1, 'a', 'b'],
        [2, 'line 1\nline 2', 'x'],
        [4, 'y', 'z'],
      ],
    ],
    [
      'quoted CRLF',
      'a,b\r\n"line 1\r\nline 2\r\nline 3",x\r\ny,z',
      [
        [1, 'a', 'b'],
        [2, 'line 1\r\nline 2\r\nline 3', 'x'],
        [5, 'y', 'z'],
      ],
    ],
    [
      'empty lines skipped, lines kept',
      'a\n\n\nb\r\n\r\nc\n',
      [
        [1, 'a'],
        [4, 'b'],
        [6, 'c'],
      ],
    ],
    [
      'blank lines skipped',
      'a\n   \n,,\n , \nb',
      [
        [1, 'a'],
        [5, 'b'],
      ],
    ],
    ['leading empty lines', '\n\na,b', [[3, 'a', 'b']]],
    [
      'stray quotes kept (relaxed)',
      'a,b"c,d"\n1,2',
      [
        [1, 'a', 'b"c', 'd"'],
        [2, '1', '2'],
      ],
    ],
    ['text after a closing quote kept', '"a"b,c', [[1, '"a"b', 'c']]],
    [
      'unicode',
      'Name,Amount\nCafé ☕ 😀,−5\n日本,1',
      [
        [1, 'Name', 'Amount'],
        [2, 'Café ☕ 😀', '−5'],
        [3, '日本', '1'],
      ],
    ],
    ['only a header', 'Date,Amount', [[1, 'Date', 'Amount']]],
    ['empty text', '', []],
    ['only line ends', '\n\r\n\n', []],
  ])('%s', async (_name, text, expected) => {
    expect(await rows(text)).toEqual(expected);
  });

  it('splits on ";" when told, leaving "," in cells', async () => {
    expect(await rows('Date;Amount\n01.02.2024;1.234,56\n"a;b";"c"', ';')).toEqual([
      [1, 'Date', 'Amount'],
      [2, '01.02.2024', '1.234,56'],
      [3, 'a;b', 'c'],
    ]);
  });

  it('passes ragged rows on with their own length', async () => {
    expect(await rows('a,b,c\n1\n1,2,3,4,5\n1,2,\n,,3\n')).toEqual([
      [1, 'a', 'b', 'c'],
      [2, '1'],
      [3, '1', '2', '3', '4', '5'],
      [4, '1', '2', ''],
      [5, '', '', '3'],
    ]);
  });

  it('reads across its 64 KiB slices: a surrogate pair, a CRLF and a quoted cell cut at the boundary', async () => {
    const slice = 64 * 1024;
    const emoji = `a\n${'x'.repeat(slice - 3)}😀y\nz`;
    expect(emoji.charCodeAt(slice - 1)).toBe(0xd83d);
    expect(await rows(emoji)).toEqual([
      [1, 'a'],
      [2, `${'x'.repeat(slice - 3)}😀y`],
      [3, 'z'],
    ]);

    const crlf = `${'x'.repeat(slice - 1)}\r\ny\r\nz`;
    expect(await rows(crlf)).toEqual([
      [1, 'x'.repeat(slice - 1)],
      [2, 'y'],
      [3, 'z'],
    ]);

    const quoted = `a\n"${'q'.repeat(slice)}\r\n""${'q'.repeat(slice)}",1\nb`;
    expect(await rows(quoted)).toEqual([
      [1, 'a'],
      [2, `${'q'.repeat(slice)}\r\n"${'q'.repeat(slice)}`, '1'],
      [4, 'b'],
    ]);
  });

  it('reads a 10 MiB single-column CSV quickly', { timeout: 20_000 }, async () => {
    const lines = ['Amount'];
    let size = 'Amount'.length;
    while (size < 10 * 1024 * 1024) {
      const line = `${lines.length * 7}.${lines.length % 100}`;
      lines.push(line);
      size += line.length + 1;
    }
    const text = lines.join('\n');
    const started = performance.now();
    let count = 0;
    let last: CsvRecord | undefined;
    for await (const record of csvRecords(text, { delimiter: ',' })) {
      count += 1;
      last = record;
    }
    const elapsed = performance.now() - started;
    expect(count).toBe(lines.length);
    expect(last).toEqual({ line: lines.length, cells: [lines.at(-1)] });
    // Generous for slow CI machines; about a second here.
    expect(elapsed).toBeLessThan(15_000);
  });

  it('can be left early without hanging', async () => {
    const text = `a\n${'1\n'.repeat(200_000)}`;
    for await (const record of csvRecords(text, { delimiter: ',' })) {
      expect(record.line).toBe(1);
      break;
    }
  });
});

describe('csvRecords: malformed CSV', () => {
  it.each([
    ['a quote never closed at the end of the file', 'a,b\n1,2\n"3,4\n5,6\n', 3],
    ['after empty lines', 'a,b\n\n\n"3,4', 4],
    ['after a quoted cell spanning CRLF lines', 'a,b\r\n"x\r\ny\r\nz",1\r\n\r\n"open,2\r\n', 6],
    ['in the header', '"a,b\n1,2', 1],
    ['in the middle of a row', 'a,b\n1,"2\n3,4', 2],
  ])('%s: a CsvSyntaxError with the line the record starts on', async (_name, text, line) => {
    const failure = records(text);
    await expect(failure).rejects.toBeInstanceOf(CsvSyntaxError);
    await expect(failure).rejects.toMatchObject({
      name: 'CsvSyntaxError',
      line,
      message: `Line ${line}: a quoted cell is never closed (a '"' opens it, none ends it)`,
    });
  });

  it('stops a quote opened by mistake at 1 MiB instead of reading the whole file into one cell', async () => {
    const text = `a\n"b\n${'c,d\n'.repeat(300_000)}`;
    await expect(records(text)).rejects.toMatchObject({
      name: 'CsvSyntaxError',
      line: 2,
      message: 'Line 2: the row is longer than 1 MiB; is a quoted cell never closed?',
    });
  });

  it('yields the records before the malformed one, then throws', async () => {
    const seen: number[] = [];
    const reading = (async () => {
      for await (const record of csvRecords('a\n"b\nc"\n\nd\n"e', { delimiter: ',' })) seen.push(record.line);
    })();
    await expect(reading).rejects.toMatchObject({ name: 'CsvSyntaxError', line: 6 });
    expect(seen).toEqual([1, 2, 5]);
  });
});

// ---- Property: any grid of cells, written with proper quoting, reads back with its line numbers ----

const cellUnit = fc.constantFrom(
  'a',
  'Z',
  '7',
  ' ',
  ',',
  ';',
  '"',
  '\n',
  '\r\n',
  '\r',
  '|',
  '\t',
  'é',
  '😀',
  '\u00A0',
  '日',
);
const cell = fc.oneof(fc.string({ unit: cellUnit, maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 5 }));
const grid = fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 12 });

interface Written {
  text: string;
  /** What csvRecords should yield for it. */
  expected: CsvRecord[];
}

/** A CSV writer: quotes a cell when it must (or when `quoteAll`), doubling its quotes. */
function writeCsv(
  cells: string[][],
  delimiter: string,
  lineEnds: string[],
  quoteAll: boolean,
  bom: boolean,
  final: boolean,
): Written {
  let text = bom ? '\uFEFF' : '';
  const expected: CsvRecord[] = [];
  cells.forEach((row, index) => {
    const line = (text.match(/\r\n|\r|\n/g)?.length ?? 0) + 1;
    const written = row.map((value) => {
      const mustQuote = value.includes(delimiter) || value.includes('"') || /[\r\n]/.test(value);
      return mustQuote || quoteAll ? `"${value.replaceAll('"', '""')}"` : value;
    });
    text += written.join(delimiter);
    if (index < cells.length - 1 || final) text += lineEnds[index % lineEnds.length];
    const trimmed = row.map((value) => value.trim());
    if (trimmed.some((value) => value !== '')) expected.push({ line, cells: trimmed });
  });
  return { text, expected };
}

describe('csvRecords property', () => {
  it('reads back any grid written with proper quoting, with the line each record starts on', async () => {
    await fc.assert(
      fc.asyncProperty(
        grid,
        fc.constantFrom<',' | ';'>(',', ';'),
        fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (cells, delimiter, lineEnds, quoteAll, bom, final) => {
          const { text, expected } = writeCsv(cells, delimiter, lineEnds, quoteAll, bom, final);
          expect(await records(text, delimiter)).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('splitTags', () => {
  it.each([
    ['', []],
    ['   ', []],
    ['groceries', ['groceries']],
    ['groceries|travel', ['groceries', 'travel']],
    [' groceries | travel ', ['groceries', 'travel']],
    ['a||b|', ['a', 'b']],
    ['|', []],
    ['Travel|travel|TRAVEL|Food', ['Travel', 'Food']],
    ['Caf\u00E9|Cafe\u0301', ['Caf\u00E9']],
    ['rock\\|roll|jazz', ['rock|roll', 'jazz']],
    ['a\\b|c', ['a\\b', 'c']],
    ['trailing\\', ['trailing\\']],
    ['a, b|c', ['a, b', 'c']],
    ['  spaced  tag  |x', ['spaced  tag', 'x']],
  ])('%j -> %j', (cellText, tags) => {
    expect(splitTags(cellText)).toEqual(tags);
  });
});
