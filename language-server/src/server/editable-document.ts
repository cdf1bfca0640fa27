import type { Position, Range, TextDocumentContentChangeEvent } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { lineOfOffset } from '../service/reading/text-document.ts';

const LINE_BREAK = /\r\n|\r|\n/g;

/** The lines of a text, each with its line break (the last one has none). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  LINE_BREAK.lastIndex = 0;
  for (let found = LINE_BREAK.exec(text); found; found = LINE_BREAK.exec(text)) {
    const end = found.index + found[0].length;
    lines.push(text.slice(start, end));
    start = end;
  }
  lines.push(text.slice(start));
  return lines;
}

/** Changes kept as splices of the last whole text; past this many, the text is joined from the lines again. */
const MAX_SPLICES = 512;

interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * The text after the splices, each given in offsets of the text the ones before it left. The
 * result is built as a list of pieces (slices share the old text's memory) joined once: applying
 * the splices one by one would copy the whole text for each.
 */
function spliced(text: string, splices: readonly Splice[]): string {
  let pieces = [text];
  for (const { start, end, text: inserted } of splices) {
    const next: string[] = [];
    let offset = 0;
    let placed = false;
    for (const piece of pieces) {
      const pieceEnd = offset + piece.length;
      if (pieceEnd <= start || offset >= end) {
        if (!placed && offset >= start) {
          next.push(inserted);
          placed = true;
        }
        next.push(piece);
      } else {
        if (offset < start) next.push(piece.slice(0, start - offset));
        if (!placed) {
          next.push(inserted);
          placed = true;
        }
        if (pieceEnd > end) next.push(piece.slice(end - offset));
      }
      offset = pieceEnd;
    }
    if (!placed) next.push(inserted);
    pieces = next.filter((piece) => piece.length > 0);
  }
  return pieces.join('');
}

/** The length of a line without its line break. */
function contentLength(line: string): number {
  let end = line.length;
  if (line.charCodeAt(end - 1) === 10) end--;
  if (line.charCodeAt(end - 1) === 13) end--;
  return end;
}

/**
 * An open document kept as lines, for the LSP document manager (`TextDocuments`): an incremental
 * change rewrites only the lines it touches, and the whole text and the line offsets are built
 * when first asked for after a change, once per version. (`vscode-languageserver-textdocument`
 * copies the whole text on each change: on a large document, an edit storm spent most of its time there.)
 */
export class EditableDocument implements TextDocument {
  private lines: string[];
  /** The whole text of a recent version, and the changes made since (offsets), while they are few. */
  private text: string | undefined;
  private splices: Splice[] = [];
  /** The offset of each line, when known for the current version. */
  private starts: number[] | undefined;

  private constructor(
    readonly uri: string,
    readonly languageId: string,
    private currentVersion: number,
    content: string,
  ) {
    this.lines = splitLines(content);
    this.text = content;
  }

  static create(uri: string, languageId: string, version: number, content: string): EditableDocument {
    return new EditableDocument(uri, languageId, version, content);
  }

  /** Applies the changes in order (a change without a range replaces the text); the same document, updated. */
  static update(document: EditableDocument, changes: TextDocumentContentChangeEvent[], version: number) {
    for (const change of changes) {
      if ('range' in change) {
        document.replace(change.range, change.text);
      } else {
        document.lines = splitLines(change.text);
        document.text = change.text;
        document.splices = [];
        document.starts = undefined;
      }
    }
    document.currentVersion = version;
    return document;
  }

  get version(): number {
    return this.currentVersion;
  }

  get lineCount(): number {
    return this.lines.length;
  }

  getText(range?: Range): string {
    if (this.text === undefined) this.text = this.lines.join('');
    else if (this.splices.length > 0) this.text = spliced(this.text, this.splices);
    this.splices = [];
    return range ? this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end)) : this.text;
  }

  positionAt(offset: number): Position {
    const starts = this.lineStarts();
    const clamped = Math.max(0, Math.min(Math.floor(offset), starts[starts.length - 1]! + this.lines.at(-1)!.length));
    const line = lineOfOffset(starts, clamped);
    return { line, character: Math.min(clamped - starts[line]!, contentLength(this.lines[line]!)) };
  }

  offsetAt(position: Position): number {
    const { line, character } = this.clamp(position);
    return this.lineStarts()[line]! + character;
  }

  /** The range of a line without its line break (the last line's for lines past the end, an empty one before the start). */
  getLineRange(line: number): Range {
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const at = Math.min(line, this.lines.length - 1);
    return { start: { line: at, character: 0 }, end: { line: at, character: contentLength(this.lines[at]!) } };
  }

  /** The line break ending a line: "\n", "\r\n", "\r" or "" (the last line, lines out of range). */
  getEOLCharacters(line: number): string {
    const text = this.lines[line];
    return text === undefined ? '' : text.slice(contentLength(text));
  }

  /** A position inside the text: a line that exists, a character before its line break. */
  private clamp(position: Position): Position {
    const last = this.lines.length - 1;
    if (position.line < 0) return { line: 0, character: 0 };
    if (position.line > last) return { line: last, character: this.lines[last]!.length };
    const length = contentLength(this.lines[position.line]!);
    return { line: position.line, character: Math.max(0, Math.min(position.character, length)) };
  }

  private replace(range: Range, text: string): void {
    let start = this.clamp(range.start);
    let end = this.clamp(range.end);
    if (start.line > end.line || (start.line === end.line && start.character > end.character))
      [start, end] = [end, start];
    // A line break starting the change after a lone "\r" joins the line before: "\r\n" is one break.
    if (start.line > 0 && start.character === 0 && /(^|[^\r\n])\r$/.test(this.lines[start.line - 1]!)) {
      start = { line: start.line - 1, character: this.lines[start.line - 1]!.length };
    }
    // While the last text is kept, the change is also recorded as a splice of it (by offsets).
    if (this.text !== undefined) this.lineStarts();
    const startOffset = this.starts && this.starts[start.line]! + start.character;
    const endOffset = this.starts && this.starts[end.line]! + end.character;
    const before = this.lines[start.line]!.slice(0, start.character);
    const after = this.lines[end.line]!.slice(end.character);
    const replaced = before + text + after;
    if (start.line === end.line && !/[\r\n]/.test(text)) {
      // Typing: one line changes, and the lines after it move by the change in length.
      this.lines[start.line] = replaced;
      const delta = text.length - (end.character - start.character);
      if (this.starts && delta !== 0)
        for (let i = start.line + 1; i < this.starts.length; i++) this.starts[i]! += delta;
    } else {
      const lines = splitLines(replaced);
      // A text that ended in a line break leaves an empty last piece, unless it is the document's end.
      if (lines.length > 1 && lines.at(-1) === '' && end.line < this.lines.length - 1) lines.pop();
      this.lines =
        lines.length < 10_000
          ? (this.lines.splice(start.line, end.line - start.line + 1, ...lines), this.lines)
          : [...this.lines.slice(0, start.line), ...lines, ...this.lines.slice(end.line + 1)];
      this.starts = undefined;
    }
    if (
      this.text !== undefined &&
      startOffset !== undefined &&
      endOffset !== undefined &&
      this.splices.length < MAX_SPLICES
    ) {
      this.splices.push({ start: startOffset, end: endOffset, text });
    } else {
      this.text = undefined;
      this.splices = [];
    }
  }

  private lineStarts(): number[] {
    if (!this.starts) {
      const starts = new Array<number>(this.lines.length);
      let offset = 0;
      for (let i = 0; i < this.lines.length; i++) {
        starts[i] = offset;
        offset += this.lines[i]!.length;
      }
      this.starts = starts;
    }
    return this.starts;
  }
}
