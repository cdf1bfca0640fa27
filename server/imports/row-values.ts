import { ACCOUNT_TYPES } from '../accounts/account.entity.ts';
import { ValidationFailed } from '../core/errors.ts';
import { BOUNDS, SCALE } from '../core/money/bounds.ts';
import { decimalInput } from '../core/money/decimal-input.ts';
import { isKnownCurrency, negate } from '../core/money/money.ts';
import type { ImportType, NumberFormat } from './import-configuration.ts';
import type { FieldKey } from './import-types.ts';
import { dateWithinImportRange, type DateReader } from './parsing/date-format.ts';
import { parseAmount } from './parsing/number-format.ts';
import { splitTags } from './parsing/csv-rows.ts';
import { RATE_RULE, SAME_CURRENCY } from '../exchange-rates/exchange-rate.input.ts';

/** A problem of one row: the header of its cell (when there is one) and what is wrong. */
export interface RowError {
  column?: string;
  message: string;
}

/** How the cells of one import are read. */
export interface CellRules {
  readDate: DateReader;
  dateFormat: string;
  numberFormat: NumberFormat;
  /** `inflows_positive`: a positive CSV amount is money in (stored negative). */
  inflowsPositive: boolean;
  /** `YYYY-MM-DD` of today, the end of the accepted date range being five years later. */
  today: string;
  /** Whether the import names an account itself (else each row must). */
  hasAccount: boolean;
}

/**
 * One row's cells by meaning (a FieldKey, or the code of a currency column), and the header each
 * came from.
 */
export interface RowCells {
  /** The codes of the currency columns of the ECB layout (TypeSpec.currencyColumns); else none. */
  quoted: readonly string[];
  get(key: string): string | undefined;
  header(key: string): string | undefined;
}

const ACCOUNT_TYPE_SET: ReadonlySet<string> = new Set(ACCOUNT_TYPES);

const TEXT_LIMITS = { name: 255, notes: 10_000, category: 255, tags: 255, account: 255, ticker: 32 } as const;

/** Collects the problems of a row while its values are read. */
class RowReading {
  readonly errors: RowError[] = [];
  constructor(
    readonly cells: RowCells,
    readonly rules: CellRules,
  ) {}

  problem(key: string, message: string): undefined {
    const column = this.cells.header(key);
    this.errors.push(column === undefined ? { message } : { column, message });
    return undefined;
  }

  text(key: string, required = false): string | undefined {
    const value = this.cells.get(key);
    if (value === undefined || value === '') return required ? this.problem(key, `${key} is required`) : undefined;
    const limit = (TEXT_LIMITS as Record<string, number>)[key] ?? 255;
    if (value.length > limit) return this.problem(key, `${key} must be at most ${limit} characters`);
    if (value.includes('\0')) return this.problem(key, `${key} must not contain NUL characters`);
    return value;
  }

  date(key: FieldKey, required = true): string | undefined {
    const cell = this.text(key, required);
    if (cell === undefined) return undefined;
    const iso = this.rules.readDate(cell);
    if (!iso) return this.problem(key, `${key} '${cell}' is not a date in the format ${this.rules.dateFormat}`);
    if (!dateWithinImportRange(iso, this.rules.today)) {
      return this.problem(key, `${key} ${iso} is outside 1970-01-01 to five years from today`);
    }
    return iso;
  }

  /** A number in the import's format, held to the column's places and bound. */
  decimal(key: string, options: { scale: number; max: string; required?: boolean; positive?: boolean }) {
    const cell = this.text(key, options.required ?? true);
    if (cell === undefined) return undefined;
    const parsed = parseAmount(cell, this.rules.numberFormat);
    if (parsed === undefined) {
      return this.problem(key, `${key} '${cell}' is not a number in the format ${this.rules.numberFormat}`);
    }
    try {
      return decimalInput(parsed, {
        path: '',
        label: key,
        scale: options.scale,
        max: options.max,
        aboveZero: options.positive,
      });
    } catch (error) {
      if (error instanceof ValidationFailed) return this.problem(key, error.message);
      throw error;
    }
  }

  /** The row's own currency; without one the job uses the account's (else the family's). */
  currency(key: FieldKey = 'currency', required = false): string | undefined {
    const cell = this.text(key, required);
    if (cell === undefined) return undefined;
    const code = cell.toUpperCase();
    return isKnownCurrency(code) ? code : this.problem(key, `${key} '${cell}' is not an ISO 4217 code`);
  }

  /** The account of a row: the import's, else the row's `account` cell (which is then required). */
  account(): string | undefined {
    return this.text('account', !this.rules.hasAccount);
  }

  tags(): string[] {
    const cell = this.text('tags');
    return cell === undefined ? [] : splitTags(cell);
  }
}

/** Stored sign: positive is money going out. A CSV amount is turned around when inflows are positive. */
function storedAmount(amount: string, inflowsPositive: boolean): string {
  return inflowsPositive ? negate(amount) : amount;
}

function jsonArray(reading: RowReading, key: FieldKey): unknown[] | undefined {
  const cell = reading.text(key, true);
  if (cell === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(cell);
    if (Array.isArray(value)) return value;
  } catch {
    // reported below
  }
  return reading.problem(key, `${key} must be a JSON array`);
}

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true,
  '1': true,
  yes: true,
  y: true,
  false: false,
  '0': false,
  no: false,
  n: false,
};

type Builder = (reading: RowReading) => Record<string, unknown>;

const transaction: Builder = (reading) => {
  const date = reading.date('date');
  const amount = reading.decimal('amount', { scale: SCALE.money, max: BOUNDS.amount });
  return {
    date,
    amount: amount === undefined ? undefined : storedAmount(amount, reading.rules.inflowsPositive),
    name: reading.text('name') ?? 'Imported item',
    currency: reading.currency(),
    category: reading.text('category'),
    tags: reading.tags(),
    notes: reading.text('notes'),
    account: reading.account(),
  };
};

/** The values of each type's row, as the import job writes them. */
const ROW_BUILDERS: Record<ImportType, Builder> = {
  TransactionImport: transaction,
  ExternalImport: (reading) => {
    const values = transaction(reading);
    const kind = reading.text('transaction_type', true);
    // Another application's export: amounts are magnitudes and the type says the direction.
    if (typeof values.amount === 'string' && kind !== undefined) {
      const magnitude = values.amount.replace(/^-/, '');
      values.amount = kind.toLowerCase() === 'credit' ? negate(magnitude) : magnitude;
    }
    return values;
  },
  TradeImport: (reading) => {
    const qty = reading.decimal('qty', { scale: SCALE.qty, max: BOUNDS.qty });
    if (qty !== undefined && /^-?0(\.0*)?$/.test(qty)) reading.problem('qty', 'qty must not be 0');
    return {
      date: reading.date('date'),
      ticker: reading.text('ticker', true)?.toUpperCase(),
      qty,
      price: reading.decimal('price', { scale: SCALE.money, max: BOUNDS.price, positive: true }),
      exchange_operating_mic: reading.text('exchange_operating_mic')?.toUpperCase(),
      name: reading.text('name'),
      currency: reading.currency(),
      account: reading.account(),
    };
  },
  AccountImport: (reading) => {
    const type = reading
      .text('entity_type', true)
      ?.toLowerCase()
      .replace(/[\s-]+/g, '_');
    if (type !== undefined && !ACCOUNT_TYPE_SET.has(type)) {
      reading.problem('entity_type', `account type '${type}' is not one of: ${ACCOUNT_TYPES.join(', ')}`);
    }
    return {
      name: reading.text('name', true),
      account_type: type,
      balance: reading.decimal('amount', { scale: SCALE.money, max: BOUNDS.amount }),
      currency: reading.currency(),
      date: reading.date('date', false),
    };
  },
  CategoryImport: (reading) => {
    const name = reading.text('name', true);
    const color = reading.text('color');
    if (color !== undefined && !/^#[0-9a-f]{6}$/i.test(color))
      reading.problem('color', `color '${color}' is not #rrggbb`);
    const parent = reading.text('parent');
    if (name !== undefined && parent !== undefined && name.toLowerCase() === parent.toLowerCase()) {
      reading.problem('parent', `category '${name}' cannot be its own parent`);
    }
    return { name, color, parent, icon: reading.text('icon') };
  },
  RuleImport: (reading) => {
    const resourceType = reading.text('resource_type', true);
    if (resourceType !== undefined && resourceType !== 'transaction') {
      reading.problem('resource_type', `resource_type '${resourceType}' is not supported (only transaction)`);
    }
    const activeCell = reading.text('active');
    const active = activeCell === undefined ? true : BOOLEAN_WORDS[activeCell.toLowerCase()];
    if (active === undefined) reading.problem('active', `active '${activeCell}' is not true or false`);
    const actions = jsonArray(reading, 'actions');
    if (actions && actions.length === 0) reading.problem('actions', 'a rule needs at least one action');
    return {
      name: reading.text('name'),
      resource_type: resourceType,
      active,
      effective_date: reading.date('effective_date', false),
      conditions: jsonArray(reading, 'conditions'),
      actions,
    };
  },
  ExchangeRateImport: exchangeRates,
};

/** The rates of one row, `source` `ecb` (the ECB layout) or `csv` (a `date,from,to,rate` row). */
function exchangeRates(reading: RowReading): Record<string, unknown> {
  const date = reading.date('date');
  const { quoted } = reading.cells;
  const rate = (key: string) => reading.decimal(key, { ...RATE_RULE, positive: true });
  if (quoted.length) {
    // The ECB's reference rates: how many units of each column's currency 1 EUR buys that day.
    // `N/A` (no fixing for that currency that day) and blank cells carry no rate.
    const rates = quoted.flatMap((code) => {
      const cell = reading.cells.get(code);
      if (cell === undefined || cell === '' || cell.toUpperCase() === 'N/A') return [];
      if (code === 'EUR') {
        reading.problem(code, SAME_CURRENCY);
        return [];
      }
      const value = rate(code);
      return value === undefined ? [] : [{ from: 'EUR', to: code, rate: value }];
    });
    return { date, source: 'ecb', rates };
  }
  const from = reading.currency('from', true);
  const to = reading.currency('to', true);
  if (from !== undefined && from === to) reading.problem('to', SAME_CURRENCY);
  return { date, source: 'csv', rates: [{ from, to, rate: rate('rate') }] };
}

/** Reads one row: its values (undefined members dropped), or its problems. */
export function readRowValues(
  type: ImportType,
  cells: RowCells,
  rules: CellRules,
): { values: Record<string, unknown> | null; errors: RowError[] } {
  const reading = new RowReading(cells, rules);
  const values = ROW_BUILDERS[type](reading);
  if (reading.errors.length) return { values: null, errors: reading.errors };
  return { values: Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)), errors: [] };
}
