/**
 * The records of an import's CSV text, streamed through csv-parse: the text is fed in slices and
 * records come out one by one, so a 10 MiB file never exists as an array of rows.
 */
import { CsvError, Parser } from 'csv-parse';

/** One CSV record: where it starts in the file and its cells, trimmed. */
export interface CsvRecord {
  /** 1-based line of the file on which the record starts (a quoted cell may span lines). */
  line: number;
  /** The cells, trimmed; ragged rows keep their own length, the caller reports them. */
  cells: string[];
}

/** How the CSV is written. */
export interface CsvOptions {
  /** The field separator. */
  delimiter: ',' | ';';
}

/** The CSV text cannot be read as records, for example a quoted field is never closed. */
export class CsvSyntaxError extends Error {
  override readonly name = 'CsvSyntaxError';

  constructor(
    /** 1-based line on which the record that cannot be read starts. */
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Characters fed to the parser at a time. */
const CHUNK_SIZE = 64 * 1024;

/**
 * The longest record accepted. Without a limit, a quote opened by mistake near the top of a file
 * swallows the rest of it before the parser can complain.
 */
const MAX_RECORD_SIZE = 1024 * 1024;

const BOM = '\uFEFF';
const LINE_BREAKS = /\r\n?|\n/g;

/** The text in slices of about CHUNK_SIZE characters. */
function* slices(text: string): Generator<string> {
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + CHUNK_SIZE, text.length);
    // Never cut a surrogate pair: each half alone would reach the parser as U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    yield text.slice(start, end);
    start = end;
  }
}

function lineBreaks(cell: string): number {
  if (!cell.includes('\n') && !cell.includes('\r')) return 0;
  return cell.match(LINE_BREAKS)?.length ?? 0;
}

/**
 * csv-parse's streaming parser, with the records it emits collected in an array as it parses a
 * slice instead of queued on its readable side: reading them back one by one through the stream
 * costs several times the parsing itself, and a stream that fails drops the records it had queued.
 */
class CollectingParser extends Parser {
  readonly records: string[][] = [];

  constructor(options: ConstructorParameters<typeof Parser>[0]) {
    super(options);
    // With relax_column_count, csv-parse still builds a CsvError (message, stack, a JSON copy of
    // the options) for every record whose length differs from the first's, then drops it: a file
    // of one-cell rows under a two-column header parsed ten times slower (docs/stack-traps.md). Ragged
    // rows are reported by the caller, so every record is told it has the expected length.
    const state = (this as unknown as { state: { record: unknown[] } }).state;
    Object.defineProperty(state, 'expectedRecordLength', { get: () => state.record.length, set: () => undefined });
  }

  override push(record: unknown): boolean {
    if (record === null) return super.push(null);
    this.records.push(record as string[]);
    return true;
  }
}

/**
 * The records of `text` (header row included) in file order. Accepts a leading BOM, CRLF, LF or
 * CR line ends, quoted cells with delimiters, doubled quotes and line breaks, stray quotes inside
 * unquoted cells (kept as written) and rows of any length; skips lines that hold no text at all
 * (empty, blank or only delimiters). Throws a `CsvSyntaxError` when the text cannot be split into
 * records, after yielding the records before it.
 */
export async function* csvRecords(text: string, options: CsvOptions): AsyncGenerator<CsvRecord> {
  const parser = new CollectingParser({
    delimiter: options.delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    relax_quotes: true,
    // Lines are counted here, not read from csv-parse's `info`: its counter counts a CRLF inside a
    // quoted cell twice, and taking it per record costs four times the parsing. So empty lines come
    // out as records (skipped below), making every line break either a record's end or in a cell.
    skip_empty_lines: false,
    // No csv-parse `trim`: it treats line breaks as trimmable, so a blank line merges into the
    // next record. Cells are trimmed below instead.
    max_record_size: MAX_RECORD_SIZE,
  });
  // Without a listener an 'error' event would crash the process; failures arrive through the callbacks.
  parser.on('error', () => undefined);
  let nextLine = 1;
  function* take(): Generator<CsvRecord> {
    for (const record of parser.records.splice(0)) {
      const line = nextLine;
      let breaks = 0;
      let blank = true;
      const cells = record.map((raw) => {
        breaks += lineBreaks(raw);
        const cell = raw.trim();
        if (cell !== '') blank = false;
        return cell;
      });
      nextLine = line + breaks + 1;
      if (!blank) yield { line, cells };
    }
  }

  try {
    for (const slice of slices(text.startsWith(BOM) ? text.slice(1) : text)) {
      await new Promise<void>((resolve, reject) => parser.write(slice, (error) => (error ? reject(error) : resolve())));
      yield* take();
    }
    await new Promise<void>((resolve, reject) =>
      parser.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    yield* take();
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // The records before the failing one are all collected: the failing one starts on nextLine.
    yield* take();
    throw syntaxError(error, nextLine);
  } finally {
    // Also reached when the consumer stops early.
    parser.destroy();
  }
}

function syntaxError(error: CsvError, line: number): CsvSyntaxError {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new CsvSyntaxError(line, `Line ${line}: a quoted cell is never closed (a '"' opens it, none ends it)`);
    case 'CSV_MAX_RECORD_SIZE':
      return new CsvSyntaxError(
        line,
        `Line ${line}: the row is longer than ${MAX_RECORD_SIZE / 1024 / 1024} MiB; is a quoted cell never closed?`,
      );
    default:
      return new CsvSyntaxError(line, `Line ${line}: the CSV cannot be read (${error.message})`);
  }
}

/**
 * The tags written in one cell: separated by `|` (`\|` is a literal pipe), trimmed, empty ones
 * dropped, and repeats in another case dropped (the first spelling wins).
 */
export function splitTags(cell: string): string[] {
  const tags: string[] = [];
  const seen = new Set<string>();
  let current = '';
  const finish = () => {
    const tag = current.trim();
    current = '';
    const key = tag.normalize('NFC').toLowerCase();
    if (tag === '' || seen.has(key)) return;
    seen.add(key);
    tags.push(tag);
  };
  for (let at = 0; at < cell.length; at += 1) {
    const char = cell[at]!;
    if (char === '\\' && cell[at + 1] === '|') {
      current += '|';
      at += 1;
    } else if (char === '|') finish();
    else current += char;
  }
  finish();
  return tags;
}
