import type { ImportConfiguration, ImportType } from './import-configuration.ts';
import { DEFAULT_FORMATS, TYPE_SPECS } from './import-types.ts';
import { csvRecords, CsvSyntaxError } from './parsing/csv-rows.ts';
import { compileDateFormat, type DateReader } from './parsing/date-format.ts';
import { columnIndex, duplicateHeaders } from './parsing/headers.ts';
import { isKnownCurrency } from '../core/money/money.ts';
import { readRowValues, type CellRules, type RowError } from './row-values.ts';

/** One data row as read: cells by meaning for people, values for the job, or what is wrong. */
export interface ReadRow {
  row_number: number;
  line: number;
  fields: Record<string, string | null>;
  values: Record<string, unknown> | null;
  errors: RowError[];
}

export interface ReadContext {
  type: ImportType;
  configuration: ImportConfiguration;
  /** Whether the import has an `account_id`. */
  hasAccount: boolean;
  today: string;
}

/** A problem of the whole file (its header, its syntax): reported on every row, so no row is publishable. */
export class ImportFileProblem extends Error {}

/** The formats in effect: the type's fixed ones, else the configuration's, else the defaults. */
function effectiveFormats(type: ImportType, configuration: ImportConfiguration) {
  const { fixed = {}, dateFormats = [DEFAULT_FORMATS.date_format] } = TYPE_SPECS[type];
  const dateFormat = fixed.date_format ?? configuration.date_format;
  return {
    dateFormats: dateFormat ? [dateFormat] : dateFormats,
    numberFormat: fixed.number_format ?? configuration.number_format ?? DEFAULT_FORMATS.number_format,
    signage: fixed.signage_convention ?? configuration.signage_convention ?? DEFAULT_FORMATS.signage_convention,
    separator: configuration.col_sep ?? DEFAULT_FORMATS.col_sep,
  };
}

/** The rows of an import's CSV, and the header each column was found under. */
export interface ImportRows extends AsyncIterable<ReadRow> {
  /** The header of the column of `key` as written in the CSV, once the header row is read. */
  header(key: string): string | undefined;
}

/**
 * Reads an import's CSV row by row (streaming: the file is never an array of rows) with the
 * columns of its type and its configuration. Problems of single cells become row errors; a
 * header that lacks a required column, repeats one, or a CSV that cannot be parsed is an
 * {@link ImportFileProblem}.
 */
export function readImportRows(text: string, context: ReadContext): ImportRows {
  let headerOf: (key: string) => string | undefined = () => undefined;
  return {
    header: (key) => headerOf(key),
    [Symbol.asyncIterator]: () => rowsOf(text, context, (lookup) => (headerOf = lookup)),
  };
}

async function* rowsOf(
  text: string,
  context: ReadContext,
  onHeader: (headerOf: (key: string) => string | undefined) => void,
): AsyncGenerator<ReadRow> {
  const formats = effectiveFormats(context.type, context.configuration);
  let readers: DateReader[];
  try {
    readers = formats.dateFormats.map(compileDateFormat);
  } catch (error) {
    throw new ImportFileProblem(`date_format: ${(error as Error).message}`);
  }
  const rules: CellRules = {
    readDate: (text) => readers.reduce<string | undefined>((found, read) => found ?? read(text), undefined),
    dateFormat: formats.dateFormats.join(' or '),
    numberFormat: formats.numberFormat,
    inflowsPositive: formats.signage === 'inflows_positive',
    today: context.today,
    hasAccount: context.hasAccount,
  };

  let headers: string[] | undefined;
  let columns: Column[] = [];
  let quoted: string[] = [];
  let rowNumber = 0;
  const header = (key: string) => {
    const column = columns.find((candidate) => candidate.key === key);
    return column ? headers![column.index] : undefined;
  };
  try {
    for await (const record of csvRecords(text, { delimiter: formats.separator })) {
      if (!headers) {
        headers = record.cells;
        columns = resolveColumns(context, headers);
        quoted = columns.filter((column) => column.currency).map((column) => column.key);
        onHeader(header);
        continue;
      }
      rowNumber++;
      const fields: Record<string, string | null> = {};
      for (const { key, index } of columns) fields[key] = record.cells[index] ?? null;
      const cells = { quoted, get: (key: string) => fields[key] ?? undefined, header };
      const { values, errors } = readRowValues(context.type, cells, rules);
      if (isRagged(record.cells, headers)) {
        errors.push({ message: `row has ${record.cells.length} cells, the header ${headers.length}` });
      }
      yield { row_number: rowNumber, line: record.line, fields, values: errors.length ? null : values, errors };
    }
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new ImportFileProblem(`line ${error.line}: ${error.message}`);
    throw error;
  }
  if (!headers) throw new ImportFileProblem('the CSV is empty: a header row is needed');
  if (rowNumber === 0) throw new ImportFileProblem('the CSV has a header but no data rows');
}

/**
 * Whether a row's cells do not line up with the header. Many bank exports (Chase among them) end
 * every data row, and sometimes the header, with a comma: an empty last column that means nothing.
 * So cells past the header's last named column only count when they hold text, and a row may stop
 * short of blank header columns at the end; a row missing a named column's cell is still ragged.
 */
function isRagged(cells: string[], headers: string[]): boolean {
  let named = headers.length;
  while (named > 0 && headers[named - 1] === '') named--;
  return cells.length < named || cells.slice(named).some((cell) => cell !== '');
}

/** A column read: a meaning of the type's, or (`currency`) the code of a currency column. */
interface Column {
  key: string;
  index: number;
  currency?: true;
}

/**
 * The ECB layout: instead of the columns `instead`, every non-blank header but those found is a
 * three-letter currency code. Codes outside the accepted ISO 4217 list (currencies withdrawn
 * since, such as CYP in the ECB's historical file) are not read.
 */
function currencyColumns(headers: string[], found: Column[], instead: string[]): Column[] {
  const taken = new Set(found.map((column) => column.index));
  const others = headers.flatMap((header, index) =>
    taken.has(index) || header.trim() === '' ? [] : [{ key: header.trim().toUpperCase(), index }],
  );
  const strangers = others.filter((column) => !/^[A-Z]{3}$/.test(column.key)).map((column) => `'${column.key}'`);
  if (strangers.length || others.length === 0) {
    throw new ImportFileProblem(
      `the header needs the columns ${instead.map((key) => `'${key}'`).join(', ')} or one column per currency code${strangers.length ? ` (not codes: ${strangers.join(', ')})` : ''}`,
    );
  }
  return [
    ...found,
    ...others.filter((column) => isKnownCurrency(column.key)).map((column) => ({ ...column, currency: true as const })),
  ];
}

/** Where each column of the type is in this header; a required column that is missing is a file problem. */
function resolveColumns(context: ReadContext, headers: string[]): Column[] {
  const duplicates = duplicateHeaders(headers);
  if (duplicates.length) throw new ImportFileProblem(`the header repeats the columns ${duplicates.join(', ')}`);
  const spec = TYPE_SPECS[context.type];
  const resolved: Column[] = [];
  const missing: string[] = [];
  for (const column of spec.columns) {
    const configured = column.label ? context.configuration[column.label] : null;
    // A configured label is the only one tried: it says where that column is.
    const index = columnIndex(headers, configured ? [configured] : column.headers);
    if (index !== undefined) resolved.push({ key: column.key, index });
    else if (
      column.required ||
      (column.key === 'account' && !context.hasAccount && TYPE_SPECS[context.type].intoAccount)
    ) {
      missing.push(configured ?? column.headers[0]!);
    }
  }
  if (missing.length) {
    throw new ImportFileProblem(`the header has no column ${missing.map((label) => `'${label}'`).join(', ')}`);
  }
  if (spec.currencyColumns) {
    const absent = spec.currencyColumns.filter((key) => !resolved.some((column) => column.key === key));
    if (absent.length === spec.currencyColumns.length) return currencyColumns(headers, resolved, spec.currencyColumns);
    if (absent.length) {
      throw new ImportFileProblem(`the header has no column ${absent.map((key) => `'${key}'`).join(', ')}`);
    }
  }
  return resolved;
}
