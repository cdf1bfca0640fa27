import { TextDocument } from 'vscode-languageserver-textdocument';
import { describe, expect, it } from 'vitest';
import { randomSource } from '../../server/demo/random-source.ts';
import { EditableDocument } from '../../language-server/src/server/editable-document.ts';

const pieces = ['', 'a', 'bc', '\n', '\r\n', '\r', 'x\ny', 'key: value\n  - item\r\n'];

describe('EditableDocument', () => {
  it('applies random incremental changes as vscode-languageserver-textdocument does', () => {
    const random = randomSource(7).next;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    for (let round = 0; round < 100; round++) {
      const initial = Array.from({ length: 6 }, () => pick(pieces)).join('');
      const expected = TextDocument.create('file:///a.yaml', 'yaml', 1, initial);
      const actual = EditableDocument.create('file:///a.yaml', 'yaml', 1, initial);
      for (let version = 2; version < 30; version++) {
        // Lines that exist: vscode-languageserver-textdocument miscounts lines after a change past the end.
        const position = () => ({ line: Math.floor(random() * expected.lineCount), character: Math.floor(random() * 8) }); // prettier-ignore
        const changes = [
          random() < 0.03
            ? { text: pick(pieces) }
            : { range: { start: position(), end: position() }, text: pick(pieces) },
        ];
        TextDocument.update(expected, changes, version);
        EditableDocument.update(actual, changes, version);
        expect(actual.getText()).toBe(expected.getText());
        expect(actual.lineCount).toBe(expected.lineCount);
        expect(actual.version).toBe(version);
        for (let offset = 0; offset <= expected.getText().length + 1; offset++) {
          expect(actual.positionAt(offset)).toEqual(expected.positionAt(offset));
        }
        for (const at of [position(), { line: -1, character: 2 }, { line: expected.lineCount + 1, character: 0 }]) {
          expect(actual.offsetAt(at)).toBe(expected.offsetAt(at));
        }
      }
    }
  });

  it('builds the same text when many changes come between two reads of it', () => {
    const random = randomSource(11).next;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const initial = Array.from({ length: 400 }, () => pick(pieces)).join('');
    const expected = TextDocument.create('file:///a.yaml', 'yaml', 1, initial);
    const actual = EditableDocument.create('file:///a.yaml', 'yaml', 1, initial);
    let version = 1;
    for (let read = 0; read < 60; read++) {
      // Up to 600 changes before the text is read: kept as splices of the last text, or past
      // their limit, joined from the lines.
      const changes = read % 10 === 9 ? 600 : 1 + Math.floor(random() * 40);
      for (let i = 0; i < changes; i++) {
        const line = Math.floor(random() * expected.lineCount);
        const start = { line, character: Math.floor(random() * 8) };
        const end =
          random() < 0.7 ? start : { line: line + Math.floor(random() * 2), character: Math.floor(random() * 8) };
        const change = [{ range: { start, end }, text: pick(pieces) }];
        version++;
        TextDocument.update(expected, change, version);
        EditableDocument.update(actual, change, version);
      }
      expect(actual.getText(), `read ${read}`).toBe(expected.getText());
    }
  });
});
